package tfv1alpha1

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/job"
)

// types maps the dialect's replica types to canonical ones.
var types = map[string]job.ReplicaType{"MASTER": job.Master, "WORKER": job.Worker, "PS": job.PS}

var spec = field.NewPath("spec")

func decodeTfJob(c *convert.Context) *job.Job {
	var in TfJob
	if !c.Decode(&in) {
		return nil
	}
	SetDefaultsTfJob(&in.Spec)
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	r, base := convertSpec(c, j, &in.Spec)
	j.Source = c.Source(r.Fill(j, base, spec))
	return j
}

func decodeTFJob(c *convert.Context) *job.Job {
	var in TFJob
	if !c.Decode(&in) {
		return nil
	}
	SetDefaultsTFJob(&in.Spec)
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	r, base := convertSpec(c, j, &in.Spec.TfJobSpec)
	if p := in.Spec.CleanPodPolicy; p != nil {
		at := spec.Child("cleanPodPolicy")
		r.SetField("runPolicy.cleanPodPolicy", at)
		switch *p {
		case "CleanAll":
			j.RunPolicy.CleanPodPolicy = job.CleanAll
		case "CleanRunning":
			j.RunPolicy.CleanPodPolicy = job.CleanRunning
		case "CleanNone":
			j.RunPolicy.CleanPodPolicy = job.CleanNone
		default:
			c.Error(field.NotSupported(at, *p, []string{"CleanAll", "CleanNone", "CleanRunning"}))
		}
	}
	if tp := in.Spec.TerminationPolicy; tp != nil && tp.Chief != nil {
		at := spec.Child("terminationPolicy", "chief")
		r.SetField("successReplica", at)
		if t, ok := types[strings.ToUpper(tp.Chief.ReplicaName)]; ok {
			j.SuccessReplica = &job.ReplicaRef{Type: t, Index: tp.Chief.ReplicaIndex}
		} else {
			c.Error(field.NotSupported(at.Child("replicaName"), tp.Chief.ReplicaName, []string{"MASTER", "PS", "WORKER"}))
		}
	}
	if in.Spec.SchedulerName != "" {
		j.Scheduler = &job.SchedulerSpec{SchedulerName: in.Spec.SchedulerName}
	}
	j.Source = c.Source(r.Fill(j, base, spec))
	return j
}

// convertSpec converts the replica specs and the tensorboard of s into j,
// returning the replicas and the path of the list the user wrote.
func convertSpec(c *convert.Context, j *job.Job, s *TfJobSpec) (*convert.Replicas, *field.Path) {
	r := convert.NewReplicas(job.TensorFlow)
	list, base := s.ReplicaSpecs, spec.Child("replicaSpecs")
	if s.ReplicaSpecsSnake != nil {
		if s.ReplicaSpecs != nil {
			c.Error(field.Forbidden(spec.Child("replica_specs"), "spec.replicaSpecs is also set; use one spelling"))
		} else {
			list, base = s.ReplicaSpecsSnake, spec.Child("replica_specs")
		}
	}
	image, _ := convert.OneOf(c, convert.Spelling[string]{Path: spec.Child("tfImage"), Value: s.TFImage},
		convert.Spelling[string]{Path: spec.Child("tf_image"), Value: s.TFImageSnake})
	for i, rs := range list {
		path := base.Index(i)
		if rs == nil {
			c.Error(field.Required(path, "a replica spec"))
			continue
		}
		replica(c, r, rs, path, *image)
	}
	if tb := s.TensorBoard; tb != nil {
		r.SetField("tensorboard", spec.Child("tensorboard"))
		j.TensorBoard = &job.TensorBoard{
			LogDir: tb.LogDir, Image: *image, Volumes: tb.Volumes,
			VolumeMounts: tb.VolumeMounts, ServiceType: tb.ServiceType,
		}
	}
	return r, base
}

func replica(c *convert.Context, r *convert.Replicas, rs *TfReplicaSpec, path *field.Path, image string) {
	typ, typPath := convert.OneOf(c, convert.Spelling[string]{Path: path.Child("tfReplicaType"), Value: rs.TFReplicaType},
		convert.Spelling[string]{Path: path.Child("tf_replica_type"), Value: rs.TFReplicaTypeSnake})
	t, ok := types[strings.ToUpper(*typ)]
	if !ok {
		c.Error(field.NotSupported(typPath, *typ, []string{"MASTER", "PS", "WORKER"}))
		return
	}
	port, portPath := convert.OneOf(c, convert.Spelling[int32]{Path: path.Child("tfPort"), Value: rs.TFPort},
		convert.Spelling[int32]{Path: path.Child("tf_port"), Value: rs.TFPortSnake})
	s := &job.ReplicaSpec{Replicas: rs.Replicas, Port: port}
	switch {
	case rs.Template != nil && (t != job.PS || rs.IsDefaultPS == nil || !*rs.IsDefaultPS):
		s.Template = *rs.Template
	case t != job.PS:
		c.Error(field.Required(path.Child("template"), "a pod template with a container named tensorflow"))
		return
	}
	s.RestartPolicy = job.RestartPolicy(s.Template.Spec.RestartPolicy)
	switch {
	case s.RestartPolicy != "":
		r.SetReplicaField(t, "restartPolicy", path.Child("template", "spec", "restartPolicy"))
	case t == job.Master:
		s.RestartPolicy = job.RestartExitCode
	default:
		s.RestartPolicy = job.RestartOnFailure
	}
	if !r.Add(c, t, *typ, s, path, typPath) {
		return
	}
	if portPath != nil {
		r.SetReplicaField(t, "port", portPath)
	}
	r.SetPort(t, s, path.Child("template"))
	if t == job.PS && job.TrainingContainer(&s.Template.Spec, job.TensorFlow) == nil {
		if s.Port == nil {
			s.Port = convert.Ptr(job.DefaultTFPort)
		}
		s.Template.Spec.Containers = append(s.Template.Spec.Containers, DefaultPSContainer(image, *s.Port))
	}
}
