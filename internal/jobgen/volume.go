package jobgen

import "strings"

// volume is the i-th volume of a pod: a source users name (two, or none,
// now and then).
func (g *Generator) volume(i int) map[string]any {
	name := one(g, 0.8, []string{"data", "logs", "cfg"}[i%3], "Data", "data_1", strings.Repeat("v", 64), "tfgen-bin", "tfgen-run",
		"tfgen-token", "")
	v := map[string]any{"name": name}
	switch g.pick(4, 2, 2, 1, 1, 1, 1, g.bad(1)) {
	case 0:
		ed := map[string]any{}
		if g.chance(0.3) {
			ed["medium"] = one(g, 0.6, "Memory", "", "HugePages", "Disk")
		}
		if g.chance(0.3) {
			ed["sizeLimit"] = one(g, 0.6, "1Gi", "-1Gi", "0")
		}
		v["emptyDir"] = ed
	case 1:
		hp := map[string]any{"path": one(g, 0.7, "/data", "", "relative", "/a/../b")}
		if g.chance(0.3) {
			hp["type"] = one(g, 0.6, "Directory", "DirectoryOrCreate", "bogus")
		}
		v["hostPath"] = hp
	case 2:
		v["persistentVolumeClaim"] = map[string]any{"claimName": one(g, 0.8, "data", "", "Bad_Claim")}
	case 3:
		cm := map[string]any{"name": one(g, 0.8, "cfg", "", "Bad_Name")}
		if g.chance(0.3) {
			cm["defaultMode"] = one(g, 0.6, 420, 511, 512, -1)
		}
		if g.chance(0.3) {
			cm["items"] = []any{map[string]any{"key": one(g, 0.7, "k", "", "bad key"), "path": one(g, 0.6, "p", "/abs", "../x", "")}}
		}
		v["configMap"] = cm
	case 4:
		s := map[string]any{"secretName": one(g, 0.8, "creds", "", "Bad_Name")}
		if g.chance(0.3) {
			s["defaultMode"] = one(g, 0.6, 256, 1000)
		}
		v["secret"] = s
	case 5:
		v["downwardAPI"] = map[string]any{"items": []any{map[string]any{"path": one(g, 0.7, "labels", "/abs"),
			"fieldRef": map[string]any{"fieldPath": one(g, 0.6, "metadata.labels", "metadata.name", "spec.nodeName", "status.podIP")}}}}
	case 6:
		v["nfs"] = map[string]any{"server": "nfs.example.com", "path": one(g, 0.7, "/exports", "exports")}
	default:
		if g.chance(0.5) {
			v["emptyDir"] = map[string]any{}
			v["hostPath"] = map[string]any{"path": "/data"}
		}
	}
	return v
}
