// Package validate checks a defaulted canonical job and returns every
// problem at once as a field.ErrorList, each with the field path the user
// wrote in their own dialect (job.Source): the job name against every name
// derived from it, replica types and counts, containers and images, the
// restart, clean-up and success policies, and what the API server would
// refuse in a pod template (pod*.go), so that a job tfgen renders also
// applies.
package validate
