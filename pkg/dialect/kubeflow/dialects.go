package kubeflow

import "github.com/tfgen/tfgen/pkg/dialect/internal/convert"

// Dialects lists the apiVersions and kinds this package decodes.
var Dialects = []convert.Dialect{
	{APIVersion: "kubeflow.org/v1", Kind: "TFJob", Decode: decodeTFJob},
	{APIVersion: "kubeflow.org/v1beta2", Kind: "TFJob", Decode: decodeTFJobV1beta2},
	{APIVersion: "kubeflow.org/v1beta1", Kind: "TFJob", Decode: decodeTFJobV1beta2},
	{APIVersion: "kubeflow.org/v1alpha2", Kind: "TFJob", Decode: decodeTFJobV1beta2},
	{APIVersion: "kubeflow.org/v1", Kind: "MXJob", Decode: decodeMXJob},
	{APIVersion: "kubeflow.org/v1beta1", Kind: "MXJob", Decode: decodeMXJobV1beta1},
	{APIVersion: "kubeflow.org/v1alpha2", Kind: "MXJob", Decode: decodeMXJobV1beta1},
}
