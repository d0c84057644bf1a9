package cli

import (
	"maps"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/render"
)

// helmFilename is the annotation Helm 4 puts on every document it hands a
// post-renderer, naming the chart template the document came from; Helm
// reads it back from the post-renderer's output to file each object under
// its template, and removes it.
const helmFilename = "postrenderer.helm.sh/postrender-filename"

// takeHelmFilename removes Helm's filename annotation from j, so that the
// job's record does not keep it, and returns it ("" when absent).
func takeHelmFilename(j *job.Job) string {
	name, ok := j.Annotations[helmFilename]
	if !ok {
		return ""
	}
	j.Annotations = maps.Clone(j.Annotations)
	delete(j.Annotations, helmFilename)
	if len(j.Annotations) == 0 {
		j.Annotations = nil
	}
	return name
}

// setHelmFilename puts Helm's filename annotation on every object rendered
// from the job that carried it, so that Helm files them all under the
// template of the job (`helm get manifest` shows them there).
func setHelmFilename(objs []render.Object, name string) {
	for _, o := range objs {
		meta, ok := o["metadata"].(map[string]any)
		if !ok {
			continue
		}
		ann, ok := meta["annotations"].(map[string]any)
		if !ok {
			ann = map[string]any{}
			meta["annotations"] = ann
		}
		ann[helmFilename] = name
	}
}
