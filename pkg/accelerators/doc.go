// Package accelerators reads the accelerator configuration of seed 000's
// controller config (`accelerators: {RESOURCE: {volumes, envVars}}`, or the
// bare map) and provides the cloud presets (--cloud gke|azure) for
// nvidia.com/gpu and alpha.kubernetes.io/nvidia-gpu.
package accelerators
