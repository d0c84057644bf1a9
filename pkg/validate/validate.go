package validate

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/job"
)

// Job returns every problem of j, a job defaulted by job.SetDefaults (as
// dialect.Decode returns it), with paths in the user's dialect.
func Job(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, name(j)...)
	errs = append(errs, metadata(j)...)
	errs = append(errs, replicas(j)...)
	errs = append(errs, runPolicy(j)...)
	errs = append(errs, success(j)...)
	errs = append(errs, successWorkers(j)...)
	errs = append(errs, tfgenAnnotations(j)...)
	errs = append(errs, instances(j)...)
	errs = append(errs, tensorBoard(j)...)
	errs = append(errs, scheduler(j)...)
	errs = append(errs, schedulingNames(j)...)
	return errs
}

// Supported values, sorted as field.NotSupported prints them.
var (
	restartPolicies = []job.RestartPolicy{job.RestartAlways, job.RestartExitCode, job.RestartNever, job.RestartOnFailure}
	cleanPolicies   = []job.CleanPodPolicy{job.CleanAll, job.CleanNone, job.CleanRunning}
	successPolicies = []job.SuccessPolicy{job.SuccessDefault, job.SuccessAllWorkers}
	jobModes        = []string{"MXTune", "dist", "local"}
	gangs           = []string{"", "kubernetes", "kueue", "scheduler-plugins", "volcano"}
	serviceTypes    = []string{"", "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}
)

// allowedTypes returns the replica types j may have: TensorFlow's, MXNet's
// dist and local roles, or MXTune's.
func allowedTypes(j *job.Job) []job.ReplicaType {
	switch {
	case j.Framework() == job.TensorFlow:
		return []job.ReplicaType{job.Chief, job.Evaluator, job.Master, job.PS, job.Worker}
	case j.JobMode == "MXTune":
		return []job.ReplicaType{job.Tuner, job.TunerServer, job.TunerTracker}
	}
	return []job.ReplicaType{job.Scheduler, job.Server, job.Worker}
}

func runPolicy(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	rp := j.RunPolicy
	if !contains(cleanPolicies, rp.CleanPodPolicy) {
		errs = append(errs, field.NotSupported(j.RunPolicyFieldPath("cleanPodPolicy"), rp.CleanPodPolicy, cleanPolicies))
	}
	if v := rp.TTLSecondsAfterFinished; v != nil && *v < 0 {
		errs = append(errs, field.Invalid(j.RunPolicyFieldPath("ttlSecondsAfterFinished"), *v, "must be greater than or equal to 0"))
	}
	if v := rp.ActiveDeadlineSeconds; v != nil {
		errs = append(errs, seconds(j.RunPolicyFieldPath("activeDeadlineSeconds"), *v, false)...)
	}
	if v := rp.BackoffLimit; v != nil && *v < 0 {
		errs = append(errs, field.Invalid(j.RunPolicyFieldPath("backoffLimit"), *v, "must be greater than or equal to 0"))
	}
	if sp := rp.SchedulingPolicy; sp != nil {
		p := j.RunPolicyFieldPath("schedulingPolicy")
		if v := sp.MinAvailable; v != nil && *v < 0 {
			errs = append(errs, field.Invalid(p.Child("minAvailable"), *v, "must be greater than or equal to 0"))
		}
		if v := sp.ScheduleTimeoutSeconds; v != nil && *v < 0 {
			errs = append(errs, field.Invalid(p.Child("scheduleTimeoutSeconds"), *v, "must be greater than or equal to 0"))
		}
	}
	return errs
}

func success(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	if !contains(successPolicies, j.SuccessPolicy) {
		errs = append(errs, field.NotSupported(j.SpecFieldPath("successPolicy"), j.SuccessPolicy, successPolicies))
	}
	if r := j.SuccessReplica; r != nil {
		s := j.Replicas()[r.Type]
		switch {
		case s == nil:
			errs = append(errs, field.Invalid(j.SpecFieldPath("successReplica"), r, "the job has no replicas of this type"))
		case r.Index < 0 || r.Index >= s.Count():
			errs = append(errs, field.Invalid(j.SpecFieldPath("successReplica"), r,
				"the index must be at least 0 and less than the number of replicas of the type"))
		}
	}
	if j.Framework() == job.MXNet && !contains(jobModes, j.JobMode) {
		errs = append(errs, field.NotSupported(j.SpecFieldPath("jobMode"), j.JobMode, jobModes))
	}
	return errs
}

func tensorBoard(j *job.Job) field.ErrorList {
	tb := j.TensorBoard
	if tb == nil {
		return nil
	}
	var errs field.ErrorList
	p := j.SpecFieldPath("tensorboard")
	if tb.LogDir == "" {
		errs = append(errs, field.Required(p.Child("logDir"), "the directory TensorBoard reads event files from"))
	}
	if !contains(serviceTypes, string(tb.ServiceType)) {
		errs = append(errs, field.NotSupported(p.Child("serviceType"), tb.ServiceType, serviceTypes[1:]))
	}
	vols, verrs := volumes(tb.Volumes, p.Child("volumes"))
	errs = append(errs, verrs...)
	return append(errs, mounts(&corev1.Container{VolumeMounts: tb.VolumeMounts}, vols, nil, p.Child("volumeMounts"))...)
}

func scheduler(j *job.Job) field.ErrorList {
	s := j.Scheduler
	if s != nil && !contains(gangs, s.Gang) {
		return field.ErrorList{field.NotSupported(j.SpecFieldPath("scheduler").Child("gang"), s.Gang, gangs[1:])}
	}
	if s == nil || s.Gang != "kubernetes" {
		return nil
	}
	// The Workload API's gang minCount: minAvailable, else every replica.
	if sp := j.RunPolicy.SchedulingPolicy; sp != nil && sp.MinAvailable != nil {
		if *sp.MinAvailable == 0 {
			return field.ErrorList{field.Invalid(j.RunPolicyFieldPath("schedulingPolicy").Child("minAvailable"), 0,
				"must be at least 1 for gang scheduling by Kubernetes' Workload API, whose gang minCount it is (leave it out for every replica)")}
		}
		return nil
	}
	var total int32
	for _, r := range j.Replicas() {
		total += r.Count()
	}
	if total == 0 {
		return field.ErrorList{field.Invalid(j.ReplicasPath(), 0,
			"gang scheduling by Kubernetes' Workload API needs at least one replica: its gang minCount is every replica of the job")}
	}
	return nil
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
