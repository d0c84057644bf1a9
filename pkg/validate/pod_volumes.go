package validate

import (
	"path"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// volumeFieldPaths are the pod fields a downward API volume may show,
// besides one label or annotation.
var volumeFieldPaths = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"}

// volumes checks a pod's volumes and returns those without a problem, by
// name, for their mounts.
func volumes(vols []corev1.Volume, p *field.Path) (map[string]corev1.VolumeSource, field.ErrorList) {
	var errs field.ErrorList
	valid := map[string]corev1.VolumeSource{}
	seen := map[string]bool{}
	for i, v := range vols {
		vp := p.Index(i)
		ve := volumeSource(&v.VolumeSource, vp)
		switch {
		case v.Name == "":
			ve = append(ve, field.Required(vp.Child("name"), ""))
		case slices.Contains(ownVolumes, v.Name):
			ve = append(ve, field.Duplicate(vp.Child("name"), v.Name+" (tfgen's own volume of that name is in every pod it renders; rename yours)"))
		default:
			for _, msg := range validation.IsDNS1123Label(v.Name) {
				ve = append(ve, field.Invalid(vp.Child("name"), v.Name, msg))
			}
		}
		if seen[v.Name] {
			ve = append(ve, field.Duplicate(vp.Child("name"), v.Name))
		}
		seen[v.Name] = true
		if len(ve) == 0 {
			valid[v.Name] = v.VolumeSource
		}
		errs = append(errs, ve...)
	}
	return valid, errs
}

// volumeSource checks that a volume has one source, and the fields of
// the sources users name most.
func volumeSource(s *corev1.VolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	rv := reflect.ValueOf(s).Elem()
	for i := range rv.NumField() {
		if !rv.Field(i).IsNil() {
			n++
			if n > 1 {
				name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
				errs = append(errs, field.Forbidden(p.Child(name), "may not specify more than 1 volume type"))
			}
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a volume type"))
	}
	if ed := s.EmptyDir; ed != nil {
		if ed.SizeLimit != nil && ed.SizeLimit.Sign() < 0 {
			errs = append(errs, field.Forbidden(p.Child("emptyDir", "sizeLimit"), "SizeLimit field must be a valid resource quantity"))
		}
	}
	if hp := s.HostPath; hp != nil {
		pp := p.Child("hostPath")
		if hp.Path == "" {
			errs = append(errs, field.Required(pp.Child("path"), ""))
		}
		errs = append(errs, noBacksteps(hp.Path, pp.Child("path"))...)
		if hp.Type != nil {
			errs = append(errs, oneOf(pp.Child("type"), *hp.Type, corev1.HostPathUnset, corev1.HostPathBlockDev, corev1.HostPathCharDev,
				corev1.HostPathDirectory, corev1.HostPathDirectoryOrCreate, corev1.HostPathFile, corev1.HostPathFileOrCreate, corev1.HostPathSocket)...)
		}
	}
	if c := s.PersistentVolumeClaim; c != nil && c.ClaimName == "" {
		errs = append(errs, field.Required(p.Child("persistentVolumeClaim", "claimName"), ""))
	}
	if c := s.ConfigMap; c != nil {
		errs = append(errs, keyFiles(c.Name, "name", c.DefaultMode, c.Items, p.Child("configMap"))...)
	}
	if sec := s.Secret; sec != nil {
		errs = append(errs, keyFiles(sec.SecretName, "secretName", sec.DefaultMode, sec.Items, p.Child("secret"))...)
	}
	if d := s.DownwardAPI; d != nil {
		dp := p.Child("downwardAPI")
		errs = append(errs, fileMode(d.DefaultMode, dp.Child("defaultMode"))...)
		for i, f := range d.Items {
			fp := dp.Child("items").Index(i)
			errs = append(errs, relativePath(f.Path, fp.Child("path"), true)...)
			errs = append(errs, fileMode(f.Mode, fp.Child("mode"))...)
			switch {
			case f.FieldRef != nil && f.ResourceFieldRef != nil:
				errs = append(errs, field.Invalid(fp, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
			case f.FieldRef != nil:
				errs = append(errs, objectField(f.FieldRef, volumeFieldPaths, fp.Child("fieldRef"))...)
			case f.ResourceFieldRef != nil:
				if f.ResourceFieldRef.ContainerName == "" {
					errs = append(errs, field.Required(fp.Child("resourceFieldRef", "containerName"), ""))
				}
				errs = append(errs, resourceField(f.ResourceFieldRef, fp.Child("resourceFieldRef"))...)
			default:
				errs = append(errs, field.Required(fp, "one of fieldRef and resourceFieldRef is required"))
			}
		}
	}
	if nfs := s.NFS; nfs != nil {
		np := p.Child("nfs")
		if nfs.Server == "" {
			errs = append(errs, field.Required(np.Child("server"), ""))
		}
		if !path.IsAbs(nfs.Path) {
			errs = append(errs, field.Invalid(np.Child("path"), nfs.Path, "must be an absolute path"))
		}
	}
	return errs
}

// keyFiles checks a ConfigMap or Secret volume: the object's name (its
// field nameField), the files' mode and the keys it maps to paths.
func keyFiles(name, nameField string, mode *int32, items []corev1.KeyToPath, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p.Child(nameField), ""))
	}
	errs = append(errs, fileMode(mode, p.Child("defaultMode"))...)
	p = p.Child("items")
	for i, kp := range items {
		ip := p.Index(i)
		if kp.Key == "" {
			errs = append(errs, field.Required(ip.Child("key"), ""))
		}
		errs = append(errs, relativePath(kp.Path, ip.Child("path"), true)...)
		errs = append(errs, fileMode(kp.Mode, ip.Child("mode"))...)
	}
	return errs
}

func fileMode(mode *int32, p *field.Path) field.ErrorList {
	if mode != nil && (*mode < 0 || *mode > 0o777) {
		return field.ErrorList{field.Invalid(p, *mode, "must be a number between 0 and 0777 (octal), both inclusive")}
	}
	return nil
}

// relativePath checks a path below a volume's root: relative, without
// '..', and (for files a volume writes, reserved) not starting with "..".
func relativePath(v string, p *field.Path, reserved bool) field.ErrorList {
	var errs field.ErrorList
	if reserved && v == "" {
		errs = append(errs, field.Required(p, ""))
	}
	if path.IsAbs(v) {
		errs = append(errs, field.Invalid(p, v, "must be a relative path"))
	}
	errs = append(errs, noBacksteps(v, p)...)
	if reserved && strings.HasPrefix(v, "..") {
		errs = append(errs, field.Invalid(p, v, "must not start with '..'"))
	}
	return errs
}

func noBacksteps(v string, p *field.Path) field.ErrorList {
	if slices.Contains(strings.Split(v, "/"), "..") {
		return field.ErrorList{field.Invalid(p, v, "must not contain '..'")}
	}
	return nil
}

// mounts checks a container's volume mounts against the pod's volumes and
// against the paths where tfgen mounts its own in it (own).
func mounts(c *corev1.Container, vols map[string]corev1.VolumeSource, own []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	for i, m := range c.VolumeMounts {
		mp := p.Index(i)
		switch _, ok := vols[m.Name]; {
		case m.Name == "":
			errs = append(errs, field.Required(mp.Child("name"), ""))
		case !ok:
			errs = append(errs, field.NotFound(mp.Child("name"), m.Name))
		}
		switch {
		case m.MountPath == "":
			errs = append(errs, field.Required(mp.Child("mountPath"), ""))
		case paths[m.MountPath]:
			errs = append(errs, field.Invalid(mp.Child("mountPath"), m.MountPath, "must be unique"))
		case slices.Contains(own, path.Clean(m.MountPath)):
			errs = append(errs, field.Invalid(mp.Child("mountPath"), m.MountPath, "tfgen mounts its own volume there; mount yours elsewhere"))
		}
		paths[m.MountPath] = true
		if m.SubPath != "" {
			errs = append(errs, relativePath(m.SubPath, mp.Child("subPath"), false)...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				errs = append(errs, field.Invalid(mp.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, relativePath(m.SubPathExpr, mp.Child("subPathExpr"), false)...)
		}
		if m.MountPropagation != nil {
			errs = append(errs, oneOf(mp.Child("mountPropagation"), *m.MountPropagation, corev1.MountPropagationBidirectional,
				corev1.MountPropagationHostToContainer, corev1.MountPropagationNone)...)
			privileged := c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged
			if *m.MountPropagation == corev1.MountPropagationBidirectional && !privileged {
				errs = append(errs, field.Forbidden(mp.Child("mountPropagation"), "Bidirectional mount propagation is available only to privileged containers"))
			}
		}
	}
	return errs
}
