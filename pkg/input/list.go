package input

import (
	"bytes"
	"encoding/json"
	"fmt"

	yaml3 "go.yaml.in/yaml/v3"
)

// serverFields are the metadata fields the API server sets on an object
// it stores. They are dropped from the items of a v1 List, which is what
// `kubectl get -o yaml|json` prints, so that the objects can be applied
// again, to another cluster or after the old ones are gone.
var serverFields = []string{"managedFields", "uid", "resourceVersion", "creationTimestamp", "generation", "selfLink"}

// lastApplied is the annotation kubectl apply keeps on the objects it
// applied: the old object, stale once the item is rendered anew.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// expandList returns the items of d when d is a v1 List (kind List, API
// version v1), each a document of its own with the server-set fields
// dropped (status, serverFields, the last-applied annotation); ok is false
// for any other document. An item that is not an object is an error.
func expandList(d Document) (items []Document, ok bool, err error) {
	p, err := d.parse()
	if err != nil || !bytes.Contains(p.json, []byte(`"List"`)) {
		return nil, false, nil
	}
	var list struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if json.Unmarshal(p.json, &list) != nil || list.APIVersion != "v1" || list.Kind != "List" {
		return nil, false, nil
	}
	lines := itemLines(d)
	for i, raw := range list.Items {
		item := Document{File: d.File, Index: d.Index, Line: d.Line, Item: i + 1}
		if i < len(lines) {
			item.Line = lines[i]
		}
		obj, err := decodeItem(raw)
		if err != nil {
			return nil, true, &SyntaxError{File: d.File, Line: item.Line, Format: "List", Msg: fmt.Sprintf("items[%d]: %v", i, err)}
		}
		item.Finished = finished(obj)
		dropServerFields(obj)
		if item.Raw, err = json.Marshal(obj); err != nil {
			return nil, true, err
		}
		item.parsed = &parsed{json: item.Raw}
		items = append(items, item)
	}
	return items, true, nil
}

// decodeItem decodes one List item, which must be an object; numbers stay
// as written.
func decodeItem(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, fmt.Errorf("an item must be an object with apiVersion and kind, not %s", Excerpt(string(bytes.TrimSpace(raw))))
	}
	return obj, nil
}

// finished returns the type of obj's status condition Succeeded or Failed
// that is "True", as a Kubeflow job's status has it once the job ended,
// else its status.phase when that is Succeeded or Failed (caicloud's TFJob
// has a phase and no such conditions).
func finished(obj map[string]any) string {
	status, _ := obj["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		c, _ := c.(map[string]any)
		if t := c["type"]; (t == "Succeeded" || t == "Failed") && c["status"] == "True" {
			return t.(string)
		}
	}
	if p, _ := status["phase"].(string); p == "Succeeded" || p == "Failed" {
		return p
	}
	return ""
}

// dropServerFields removes what the API server set on obj.
func dropServerFields(obj map[string]any) {
	delete(obj, "status")
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		return
	}
	for _, f := range serverFields {
		delete(meta, f)
	}
	if ann, _ := meta["annotations"].(map[string]any); ann != nil {
		delete(ann, lastApplied)
		if len(ann) == 0 {
			delete(meta, "annotations")
		}
	}
}

// itemLines returns the line of File on which each item of YAML List d
// starts, or nil when d is JSON or the lines cannot be told.
func itemLines(d Document) []int {
	if t := bytes.TrimSpace(d.Raw); len(t) > 0 && t[0] == '{' {
		return nil
	}
	var n yaml3.Node
	if yaml3.Unmarshal(d.Raw, &n) != nil || len(n.Content) != 1 || n.Content[0].Kind != yaml3.MappingNode {
		return nil
	}
	m := n.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "items" || m.Content[i+1].Kind != yaml3.SequenceNode {
			continue
		}
		var lines []int
		for _, it := range m.Content[i+1].Content {
			lines = append(lines, d.Line+it.Line-1)
		}
		return lines
	}
	return nil
}
