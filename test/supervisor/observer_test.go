package supervisor

import (
	"context"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/tfgen/tfgen/test/harness"
)

// observer is a stand-in for the StatefulSet controller, which does not
// run here: a kube-controller-manager would make and delete the pods that
// these tests make by hand, and write beside the supervisors whose writes
// they count. It does the one thing of the controller's that the keeper
// waits for: once it has seen a StatefulSet's new template, it sets
// status.observedGeneration to the StatefulSet's generation (the keeper's
// gate counts once it has). hold stops it, as a controller that is slow or
// down, until resume.
type observer struct {
	client kubernetes.Interface
	ns     string
	mu     sync.Mutex
	held   bool
	kick   chan struct{} // resume: look at every StatefulSet again
}

// observe starts the stand-in on the StatefulSets of namespace ns until
// ctx ends.
func observe(ctx context.Context, client kubernetes.Interface, ns string) *observer {
	o := &observer{client: client, ns: ns, kick: make(chan struct{}, 1)}
	go o.run(ctx)
	return o
}

// hold stops the stand-in: no generation is observed until resume.
func (o *observer) hold() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.held = true
}

// resume observes every StatefulSet's generation again, those changed
// while it was held included.
func (o *observer) resume() {
	o.mu.Lock()
	o.held = false
	o.mu.Unlock()
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// run lists the StatefulSets and watches them from that list, observing
// each as it comes; a failed call is tried again at the harness's pace
// (the API server may be stopped), an ended watch or a resume lists again.
func (o *observer) run(ctx context.Context) {
	sets := o.client.AppsV1().StatefulSets(o.ns)
	for ctx.Err() == nil {
		var w watch.Interface
		err := harness.Retry(ctx, func(ctx context.Context) error {
			list, err := sets.List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			for i := range list.Items {
				o.observe(ctx, &list.Items[i])
			}
			w, err = sets.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
			return err
		})
		if err != nil {
			return // ctx ended
		}
		o.follow(ctx, w)
	}
}

// follow observes the StatefulSets w tells of until it ends, ctx ends or
// resume asks for a new look.
func (o *observer) follow(ctx context.Context, w watch.Interface) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.kick:
			return
		case ev, open := <-w.ResultChan():
			if !open {
				return
			}
			if s, ok := ev.Object.(*appsv1.StatefulSet); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) {
				o.observe(ctx, s)
			}
		}
	}
}

// observe sets s's observedGeneration to its generation, unless held; a
// conflict leaves it to s's next event, which is on its way.
func (o *observer) observe(ctx context.Context, s *appsv1.StatefulSet) {
	o.mu.Lock()
	held := o.held
	o.mu.Unlock()
	if held || s.Status.ObservedGeneration >= s.Generation {
		return
	}
	s = s.DeepCopy()
	s.Status.ObservedGeneration = s.Generation
	_ = harness.Retry(ctx, func(ctx context.Context) error {
		_, err := o.client.AppsV1().StatefulSets(o.ns).UpdateStatus(ctx, s, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}
