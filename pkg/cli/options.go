package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tfgen/tfgen/pkg/accelerators"
	"github.com/tfgen/tfgen/pkg/entrypoints"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/render"
	"github.com/tfgen/tfgen/pkg/version"
)

// inputOptions choose the jobs a command reads.
type inputOptions struct {
	Files            []string
	Namespace        string
	Strict           bool
	ImageEntrypoints string
	GangScheduler    string
	EvaluatorGrace   string
	RestartScope     string
	Locality         string
}

// AddFlags registers -f, -n, --strict and --image-entrypoints.
func (o *inputOptions) AddFlags(fs *pflag.FlagSet) {
	fs.VarP(pathList{&o.Files}, "filename", "f", "job file, directory (its .yaml, .yml and .json files) or - for stdin; repeatable, comma-separated, and further paths may follow (a path with a comma goes there)")
	fs.StringVarP(&o.Namespace, "namespace", "n", "", "namespace of jobs that set none (default: none, so kubectl apply -n decides)")
	fs.BoolVar(&o.Strict, "strict", false, "make unknown fields and duplicate keys errors instead of warnings")
	fs.StringVar(&o.ImageEntrypoints, "image-entrypoints", "", "YAML file mapping image references to {entrypoint: [...], cmd: [...]}, so containers without a command are wrapped")
	fs.StringVar(&o.GangScheduler, "gang-scheduler", "", "gang scheduling for jobs that choose none (Kubeflow's operator flag): "+strings.Join(gangSchedulers, ", "))
	fs.StringVar(&o.RestartScope, "restart-scope", "", "for jobs without the annotation "+job.AnnotationRestartScope+": what a retryable failure restarts, Replica (default) or Job (every replica's training process, in place, counted once)")
	fs.StringVar(&o.Locality, "locality", "", "for jobs without the annotation "+job.AnnotationLocality+": preferred pod affinity, "+strings.Join(job.Localities, ", ")+" (workers toward a parameter server's node or zone, every replica toward the job's other pods; default node for DRAGON jobs, with min/max-instances, none for the others)")
	fs.StringVar(&o.EvaluatorGrace, "evaluator-grace", "", "for jobs without the annotation "+job.AnnotationEvaluatorGrace+": time a running evaluator gets to finish once the job succeeded (default 10m; 0 stops it at once)")
}

// gangSchedulers are the values of --gang-scheduler.
var gangSchedulers = []string{"volcano", "scheduler-plugins", "kueue", "kubernetes"}

// Validate checks the flags.
func (o *inputOptions) Validate() error {
	if len(o.Files) == 0 {
		return fmt.Errorf("no input: give -f PATH (a file, a directory, or - for stdin)")
	}
	if o.GangScheduler != "" && !slices.Contains(gangSchedulers, o.GangScheduler) {
		return fmt.Errorf("--gang-scheduler %q: want %s", o.GangScheduler, strings.Join(gangSchedulers, ", "))
	}
	if o.EvaluatorGrace != "" {
		if msg := job.CheckDuration(o.EvaluatorGrace); msg != "" {
			return fmt.Errorf("--evaluator-grace %q: %s", o.EvaluatorGrace, msg)
		}
	}
	if o.RestartScope != "" && o.RestartScope != "Replica" && o.RestartScope != "Job" {
		return fmt.Errorf("--restart-scope %q: want Replica or Job", o.RestartScope)
	}
	if o.Locality != "" && !slices.Contains(job.Localities, o.Locality) {
		return fmt.Errorf("--locality %q: want %s", o.Locality, strings.Join(job.Localities, ", "))
	}
	if o.Namespace != "" {
		if msgs := validation.IsDNS1123Label(o.Namespace); len(msgs) > 0 {
			return fmt.Errorf("-n %q: %s", o.Namespace, strings.Join(msgs, "; "))
		}
	}
	return nil
}

// entrypoints reads --image-entrypoints.
func (o *inputOptions) entrypoints() (entrypoints.Map, error) {
	if o.ImageEntrypoints == "" {
		return nil, nil
	}
	data, err := input.ReadConfig(o.ImageEntrypoints)
	if err != nil {
		return nil, err
	}
	m, err := entrypoints.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.ImageEntrypoints, err)
	}
	return m, nil
}

// settingsOptions are the render settings (the chart's `tfgen` values).
type settingsOptions struct {
	SupervisorImage  string
	SupervisorVolume string
	Endpoints        string
	ClusterDomain    string
	KubeVersion      string
	ExcludeEvaluator bool
	Accelerators     string
	Cloud            string
}

// AddFlags registers the render settings.
func (o *settingsOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.SupervisorImage, "supervisor-image", version.SupervisorImage(), "tfsupervisor image the init container installs from")
	fs.StringVar(&o.SupervisorVolume, "supervisor-volume", "", "how tfsupervisor reaches the training container: image (an image volume of --supervisor-image: no copy, no init container; Kubernetes 1.35, containerd 2.1 or CRI-O 1.31) or copy (an init container copies it into an emptyDir); default image from --kube-version 1.36, where image volumes are GA, copy before")
	fs.StringVar(&o.Endpoints, "endpoints", "", "who keeps the replicas' addresses for their headless Services: controller (the Services select the pods; Kubernetes' endpoint controllers rewrite a Service's endpoints, every replica's address, at each pod's start and end) or pod (each pod's tfsupervisor publishes an EndpointSlice of its own: one small write a replica, but the job's Role grants endpointslices create, which only a cluster administrator can apply); default controller")
	fs.StringVar(&o.ClusterDomain, "cluster-domain", "", "cluster domain appended to replica addresses (J-t-i.J-t.NS.svc.DOMAIN); none by default")
	fs.StringVar(&o.KubeVersion, kubeVersionFlag, version.KubeVersion, "Kubernetes minor version (X.Y) of the target cluster, which the templates read as .Capabilities.KubeVersion, as under helm template --kube-version (sidecar mode needs 1.35 or later); tfgen values writes it as tfgen.kubeVersion only when given, so that Helm follows the cluster otherwise")
	fs.BoolVar(&o.ExcludeEvaluator, "exclude-evaluator", false, "leave the evaluator out of TF_CONFIG's cluster")
	fs.StringVar(&o.Accelerators, "accelerators", "", "accelerator config file: volumes and env vars for containers using a resource (seed 000's controller config)")
	fs.StringVar(&o.Cloud, "cloud", "", "GPU preset for nvidia.com/gpu and alpha.kubernetes.io/nvidia-gpu: "+strings.Join(accelerators.Clouds(), " or "))
}

// kubeVersionFlag names the target cluster's Kubernetes minor.
const kubeVersionFlag = "kube-version"

var kubeVersion = regexp.MustCompile(`^1\.[0-9]{1,3}$`)

// Validate checks the flags.
func (o *settingsOptions) Validate() error {
	if !kubeVersion.MatchString(o.KubeVersion) {
		return fmt.Errorf("--%s %q: want MAJOR.MINOR, such as %s", kubeVersionFlag, o.KubeVersion, version.KubeVersion)
	}
	if err := checkImage(o.SupervisorImage); err != nil {
		return fmt.Errorf("--supervisor-image %q: %w", o.SupervisorImage, err)
	}
	if o.SupervisorVolume != "" && o.SupervisorVolume != "copy" && o.SupervisorVolume != "image" {
		return fmt.Errorf("--supervisor-volume %q: want copy or image", o.SupervisorVolume)
	}
	if o.Endpoints != "" && o.Endpoints != "controller" && o.Endpoints != "pod" {
		return fmt.Errorf("--endpoints %q: want controller or pod", o.Endpoints)
	}
	if err := checkClusterDomain(o.ClusterDomain); err != nil {
		return err
	}
	if o.Cloud != "" {
		if _, err := accelerators.Preset(o.Cloud); err != nil {
			return fmt.Errorf("--cloud: %w", err)
		}
	}
	return nil
}

// checkImage validates an image reference as a container's image field
// is validated, and more strictly: set, and printable ASCII with no white
// space, as every reference is.
func checkImage(image string) error {
	if image == "" {
		return fmt.Errorf("must not be empty")
	}
	if strings.ContainsFunc(image, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return fmt.Errorf("must be printable ASCII, with no white space")
	}
	return nil
}

// checkClusterDomain validates --cluster-domain as a DNS subdomain (it
// ends every replica's address), or empty.
func checkClusterDomain(domain string) error {
	if domain == "" {
		return nil
	}
	if msgs := validation.IsDNS1123Subdomain(domain); len(msgs) > 0 {
		return fmt.Errorf("--cluster-domain %q: %s", domain, strings.Join(msgs, "; "))
	}
	return nil
}

// capabilities returns the target cluster, which the templates see as
// .Capabilities.
func (o *settingsOptions) capabilities() render.Capabilities {
	return render.Capabilities{KubeVersion: o.KubeVersion}
}

// settings returns the render settings, reading --accelerators. They
// leave tfgen.kubeVersion unset: the target is the capabilities'.
func (o *settingsOptions) settings() (job.Settings, error) {
	s := job.Settings{SupervisorImage: o.SupervisorImage, SupervisorVolume: o.SupervisorVolume, Endpoints: o.Endpoints, ClusterDomain: o.ClusterDomain,
		ExcludeEvaluator: o.ExcludeEvaluator}
	var preset, file accelerators.Config
	if o.Cloud != "" {
		var err error
		if preset, err = accelerators.Preset(o.Cloud); err != nil {
			return s, err
		}
	}
	if o.Accelerators != "" {
		data, err := input.ReadConfig(o.Accelerators)
		if err != nil {
			return s, err
		}
		if file, err = accelerators.Parse(data); err != nil {
			return s, fmt.Errorf("%s: %w", o.Accelerators, err)
		}
	}
	s.Accelerators = accelerators.Merge(preset, file)
	return s, nil
}
