package t9k

import (
	"fmt"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
)

// FilesetPrefix starts a fileset on a PersistentVolumeClaim: t9k://pvc/NAME/PATH.
const FilesetPrefix = "t9k://pvc/"

// mountRoot is where TensorBoard sees the claims.
const mountRoot = "/t9k"

type fileset struct {
	claim, dir string
}

// tensorBoard converts a tensorboardSpec. One fileset mounts its claim at
// /t9k/pvc/NAME (read-only) and TensorBoard reads /t9k/pvc/NAME/PATH. Several
// filesets are each mounted at /t9k/logs/I with subPath PATH and
// TensorBoard reads /t9k/logs, where each appears as its own run.
func tensorBoard(c *convert.Context, tb *TensorBoardSpec, at *field.Path) *job.TensorBoard {
	out := &job.TensorBoard{Image: tb.Image}
	fsPath := at.Child("trainingLogFilesets")
	if len(tb.TrainingLogFilesets) == 0 {
		c.Error(field.Required(fsPath, "at least one t9k://pvc/NAME/PATH location of event files"))
		return out
	}
	var sets []fileset
	for i, s := range tb.TrainingLogFilesets {
		fs, err := parseFileset(s)
		if err != "" {
			c.Error(field.Invalid(fsPath.Index(i), s, err))
			continue
		}
		sets = append(sets, fs)
	}
	if len(sets) != len(tb.TrainingLogFilesets) {
		return out
	}
	volume := map[string]string{}
	for _, fs := range sets {
		if _, ok := volume[fs.claim]; !ok {
			name := fmt.Sprintf("tensorboard-log-%d", len(volume))
			volume[fs.claim] = name
			out.Volumes = append(out.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: fs.claim, ReadOnly: true}}})
		}
	}
	if len(sets) == 1 {
		fs := sets[0]
		mount := path.Join(mountRoot, "pvc", fs.claim)
		out.VolumeMounts = []corev1.VolumeMount{{Name: volume[fs.claim], MountPath: mount, ReadOnly: true}}
		out.LogDir = path.Join(mount, fs.dir)
		return out
	}
	for i, fs := range sets {
		out.VolumeMounts = append(out.VolumeMounts, corev1.VolumeMount{
			Name: volume[fs.claim], MountPath: path.Join(mountRoot, "logs", fmt.Sprint(i)), SubPath: fs.dir, ReadOnly: true})
	}
	out.LogDir = path.Join(mountRoot, "logs")
	return out
}

// parseFileset splits t9k://pvc/NAME/PATH, returning a message when s is
// not such a location.
func parseFileset(s string) (fileset, string) {
	rest, ok := strings.CutPrefix(s, FilesetPrefix)
	if !ok {
		return fileset{}, "tfgen reads filesets of the form t9k://pvc/NAME/PATH (a PersistentVolumeClaim and a directory in it)"
	}
	claim, dir, _ := strings.Cut(rest, "/")
	if msgs := validation.IsDNS1123Subdomain(claim); len(msgs) > 0 {
		return fileset{}, "claim name " + input.Quote(claim) + ": " + strings.Join(msgs, "; ")
	}
	dir = strings.TrimPrefix(path.Clean("/"+dir), "/")
	if dir == "" || dir == "." {
		dir = ""
	}
	return fileset{claim: claim, dir: dir}, ""
}
