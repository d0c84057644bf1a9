package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/tfgen/tfgen/pkg/operate"
)

// Server follows the jobs of Namespace ("" for every namespace) and
// serves their metrics on /metrics, and /healthz once it has listed them.
type Server struct {
	// Config reaches the API server.
	Config    *rest.Config
	Namespace string
	// Logf logs a line.
	Logf func(format string, args ...any)

	synced atomic.Bool
}

// Serve follows the jobs and serves on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r := NewReader(reg)
	cfg := rest.CopyConfig(s.Config)
	cfg.Wrap(newRequests(reg))
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := s.follow(ctx, client, r); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !s.synced.Load() {
			http.Error(w, "listing the jobs", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx) //nolint:errcheck // the listener closes either way
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// follow starts one informer of the jobs' records and one of their pods,
// feeding r; the server is healthy once both have listed.
func (s *Server) follow(ctx context.Context, client kubernetes.Interface, r *Reader) error {
	factory := func(selector string) informers.SharedInformerFactory {
		return informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(s.Namespace),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
	}
	records := factory(operate.RecordSelector())
	pods := factory(operate.LabelManagedBy + "=" + operate.ManagedBy)
	if err := records.Core().V1().ConfigMaps().Informer().SetTransform(stripManagedFields); err != nil {
		return err
	}
	if err := pods.Core().V1().Pods().Informer().SetTransform(slimPod); err != nil {
		return err
	}
	if _, err := records.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(o any, initial bool) { r.OnRecord(o.(*corev1.ConfigMap), initial) },
		UpdateFunc: func(_, o any) { r.OnRecord(o.(*corev1.ConfigMap), false) },
		DeleteFunc: func(o any) {
			if cm, ok := tombstone[*corev1.ConfigMap](o); ok {
				r.OnRecordDeleted(cm)
			}
		},
	}); err != nil {
		return err
	}
	if _, err := pods.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { r.OnPod(o.(*corev1.Pod)) },
		UpdateFunc: func(_, o any) { r.OnPod(o.(*corev1.Pod)) },
		DeleteFunc: func(o any) {
			if p, ok := tombstone[*corev1.Pod](o); ok {
				r.OnPodDeleted(p)
			}
		},
	}); err != nil {
		return err
	}
	records.Start(ctx.Done())
	pods.Start(ctx.Done())
	go func() {
		recs := records.WaitForCacheSync(ctx.Done())
		ps := pods.WaitForCacheSync(ctx.Done())
		for _, ok := range recs {
			if !ok {
				return
			}
		}
		for _, ok := range ps {
			if !ok {
				return
			}
		}
		s.synced.Store(true)
		if s.Logf != nil {
			s.Logf("following the jobs of %s", namespaceName(s.Namespace))
		}
	}()
	return nil
}

// stripManagedFields drops what the reader never reads from a record.
func stripManagedFields(o any) (any, error) {
	if m, ok := o.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return o, nil
}

// slimPod keeps of a pod what the reader reads (its labels, annotations
// and containers' states): a job of 1,000 replicas is 1,000 pods in the
// cache.
func slimPod(o any) (any, error) {
	p, ok := o.(*corev1.Pod)
	if !ok {
		return o, nil
	}
	slim := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: p.UID,
		ResourceVersion: p.ResourceVersion, Labels: p.Labels, Annotations: p.Annotations},
		Status: corev1.PodStatus{ContainerStatuses: p.Status.ContainerStatuses}}
	for i := range slim.Status.ContainerStatuses {
		cs := &slim.Status.ContainerStatuses[i]
		cs.Image, cs.ImageID, cs.ContainerID, cs.VolumeMounts, cs.Resources, cs.AllocatedResources = "", "", "", nil, nil, nil
	}
	return slim, nil
}

// tombstone returns the object a deletion carried, also when the
// informer missed the deletion and only knows the object's last state.
func tombstone[T any](o any) (T, bool) {
	if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	t, ok := o.(T)
	return t, ok
}

func namespaceName(ns string) string {
	if ns == "" {
		return "every namespace"
	}
	return "namespace " + ns
}
