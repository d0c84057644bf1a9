package harness

import (
	"bytes"
	"errors"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Object is one Kubernetes object as plain data.
type Object = map[string]any

// DecodeObjects reads a YAML stream or a JSON document (a v1 List is
// flattened into its items); documents that are not objects (no kind)
// make ok false.
func DecodeObjects(data []byte) (objs []Object, ok bool, err error) {
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var o Object
		if err := d.Decode(&o); errors.Is(err, io.EOF) {
			return objs, true, nil
		} else if err != nil {
			return nil, false, err
		}
		if o == nil {
			continue
		}
		if o["kind"] == nil || o["apiVersion"] == nil {
			return nil, false, nil
		}
		if o["kind"] == "List" {
			items, _ := o["items"].([]any)
			for _, it := range items {
				objs = append(objs, it.(Object))
			}
			continue
		}
		objs = append(objs, o)
	}
}
