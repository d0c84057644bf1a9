package tfv1alpha1

import "github.com/tfgen/tfgen/pkg/dialect/internal/convert"

// Dialects lists the apiVersions and kinds this package decodes.
var Dialects = []convert.Dialect{
	{APIVersion: "tensorflow.org/v1alpha1", Kind: "TfJob", Decode: decodeTfJob},
	{APIVersion: "mlkube.io/v1beta1", Kind: "TfJob", Decode: decodeTfJob},
	{APIVersion: "kubeflow.org/v1alpha1", Kind: "TFJob", Decode: decodeTFJob},
}
