// Package controller holds the Memcached reconciler: per resource, the work of operator-sdk's
// memcached-operator sample (testdata/go/v4/memcached-operator), in the same order and with the same
// requests, so that the benchmark measures what a user of the scaffold gets.
//
// A new Memcached costs, in order:
//  1. a status update: condition Available=Unknown ("Reconciling"), then a read (from the cache);
//  2. an update adding the finalizer cache.example.com/finalizer;
//  3. a read of the Deployment (from the cache) and, when missing, its create (owner reference to the
//     Memcached, replicas = spec.size), requeued after a minute;
//  4. on the next reconcile (the Deployment's create event brings it back): the replicas compared
//     with spec.size, updated when they differ (and requeued), else a status update: Available=True.
//
// A deletion (the finalizer holds it): Degraded=Unknown ("Finalizing") by a status update, a Warning
// event, a read, Degraded=True by a status update, and an update removing the finalizer. The
// Deployment goes with the Memcached through its owner reference (the garbage collector).
//
// Reads go to the manager's cache (the scaffold's default client), writes to the API server.
package controller

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	cachev1alpha1 "reconstruct.local/memcached-operator/api/v1alpha1"
)

const (
	memcachedFinalizer = "cache.example.com/finalizer"

	// conditionAvailable says whether the Deployment was reconciled.
	conditionAvailable = "Available"
	// conditionDegraded says that the resource is being deleted and its finalizer runs.
	conditionDegraded = "Degraded"

	// imageEnv is the operand image when a resource has no spec.image (the sample's only source of it;
	// our CRD defaults spec.image, so it is rarely needed).
	imageEnv = "MEMCACHED_IMAGE"

	memcachedPort = 11211
)

// MemcachedReconciler reconciles a Memcached object.
type MemcachedReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
	// MaxConcurrentReconciles is the number of workers (controller-runtime's default, and the
	// scaffold's, is 1).
	MaxConcurrentReconciles int
}

// The RBAC this operator needs when it runs as a ServiceAccount (kubebuilder markers, as scaffolded).
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update
// +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete

// Reconcile moves one Memcached's Deployment and status towards its spec (see the package comment).
func (r *MemcachedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	memcached := &cachev1alpha1.Memcached{}
	if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
		if apierrors.IsNotFound(err) {
			log.Info("Memcached not found: deleted")
			return ctrl.Result{}, nil
		}
		log.Error(err, "Failed to get Memcached")
		return ctrl.Result{}, err
	}

	// A resource without conditions gets Available=Unknown first.
	if len(memcached.Status.Conditions) == 0 {
		meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{
			Type: conditionAvailable, Status: metav1.ConditionUnknown,
			Reason: "Reconciling", Message: "Starting reconciliation",
		})
		if err := r.Status().Update(ctx, memcached); err != nil {
			log.Error(err, "Failed to update Memcached status")
			return ctrl.Result{}, err
		}
		// Read it again before the next update, as the sample does.
		if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
			log.Error(err, "Failed to re-fetch Memcached")
			return ctrl.Result{}, err
		}
	}

	if !controllerutil.ContainsFinalizer(memcached, memcachedFinalizer) {
		log.Info("Adding finalizer")
		controllerutil.AddFinalizer(memcached, memcachedFinalizer)
		if err := r.Update(ctx, memcached); err != nil {
			log.Error(err, "Failed to add the finalizer")
			return ctrl.Result{}, err
		}
	}

	if !memcached.GetDeletionTimestamp().IsZero() {
		return r.finalize(ctx, req, memcached)
	}

	found := &appsv1.Deployment{}
	err := r.Get(ctx, types.NamespacedName{Name: memcached.Name, Namespace: memcached.Namespace}, found)
	if apierrors.IsNotFound(err) {
		dep, err := r.deploymentFor(memcached)
		if err != nil {
			log.Error(err, "Failed to define the Deployment")
			meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{
				Type: conditionAvailable, Status: metav1.ConditionFalse, Reason: "Reconciling",
				Message: fmt.Sprintf("Failed to create Deployment for the custom resource (%s): (%s)", memcached.Name, err),
			})
			if err := r.Status().Update(ctx, memcached); err != nil {
				log.Error(err, "Failed to update Memcached status")
				return ctrl.Result{}, err
			}
			return ctrl.Result{}, err
		}
		log.Info("Creating a new Deployment", "Deployment.Namespace", dep.Namespace, "Deployment.Name", dep.Name)
		if err := r.Create(ctx, dep); err != nil {
			log.Error(err, "Failed to create the Deployment", "Deployment.Namespace", dep.Namespace, "Deployment.Name", dep.Name)
			return ctrl.Result{}, err
		}
		// The Deployment's create event brings the resource back; the minute is a safety net.
		return ctrl.Result{RequeueAfter: time.Minute}, nil
	} else if err != nil {
		log.Error(err, "Failed to get the Deployment")
		return ctrl.Result{}, err
	}

	size := memcached.Spec.Size
	if found.Spec.Replicas == nil || *found.Spec.Replicas != size {
		found.Spec.Replicas = ptr.To(size)
		if err := r.Update(ctx, found); err != nil {
			log.Error(err, "Failed to update the Deployment", "Deployment.Namespace", found.Namespace, "Deployment.Name", found.Name)
			if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
				log.Error(err, "Failed to re-fetch Memcached")
				return ctrl.Result{}, err
			}
			meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{
				Type: conditionAvailable, Status: metav1.ConditionFalse, Reason: "Resizing",
				Message: fmt.Sprintf("Failed to update the size for the custom resource (%s): (%s)", memcached.Name, err),
			})
			if err := r.Status().Update(ctx, memcached); err != nil {
				log.Error(err, "Failed to update Memcached status")
				return ctrl.Result{}, err
			}
			return ctrl.Result{}, err
		}
		// Come back with the latest state before writing the status (the sample's Requeue: true).
		return ctrl.Result{Requeue: true}, nil
	}

	meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{
		Type: conditionAvailable, Status: metav1.ConditionTrue, Reason: "Reconciling",
		Message: fmt.Sprintf("Deployment for custom resource (%s) with %d replicas created successfully", memcached.Name, size),
	})
	if err := r.Status().Update(ctx, memcached); err != nil {
		log.Error(err, "Failed to update Memcached status")
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// finalize runs the finalizer of a Memcached being deleted and removes it.
func (r *MemcachedReconciler) finalize(ctx context.Context, req ctrl.Request, memcached *cachev1alpha1.Memcached) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	if !controllerutil.ContainsFinalizer(memcached, memcachedFinalizer) {
		return ctrl.Result{}, nil
	}
	log.Info("Performing finalizer operations before the Memcached is deleted")
	meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{
		Type: conditionDegraded, Status: metav1.ConditionUnknown, Reason: "Finalizing",
		Message: fmt.Sprintf("Performing finalizer operations for the custom resource: %s ", memcached.Name),
	})
	if err := r.Status().Update(ctx, memcached); err != nil {
		log.Error(err, "Failed to update Memcached status")
		return ctrl.Result{}, err
	}

	// The sample's only finalizer operation: an event. The Deployment is not deleted here; its owner
	// reference lets the garbage collector remove it.
	r.Recorder.Event(memcached, "Warning", "Deleting",
		fmt.Sprintf("Custom Resource %s is being deleted from the namespace %s", memcached.Name, memcached.Namespace))

	if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
		log.Error(err, "Failed to re-fetch Memcached")
		return ctrl.Result{}, err
	}
	meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{
		Type: conditionDegraded, Status: metav1.ConditionTrue, Reason: "Finalizing",
		Message: fmt.Sprintf("Finalizer operations for custom resource %s name were successfully accomplished", memcached.Name),
	})
	if err := r.Status().Update(ctx, memcached); err != nil {
		log.Error(err, "Failed to update Memcached status")
		return ctrl.Result{}, err
	}

	log.Info("Removing the finalizer")
	controllerutil.RemoveFinalizer(memcached, memcachedFinalizer)
	if err := r.Update(ctx, memcached); err != nil {
		log.Error(err, "Failed to remove the finalizer")
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// imageFor is the operand image: spec.image (our CRD's field, defaulted), else MEMCACHED_IMAGE.
func imageFor(memcached *cachev1alpha1.Memcached) (string, error) {
	if memcached.Spec.Image != "" {
		return memcached.Spec.Image, nil
	}
	if image, ok := os.LookupEnv(imageEnv); ok && image != "" {
		return image, nil
	}
	return "", fmt.Errorf("the resource has no spec.image and %s is not set", imageEnv)
}

// labelsFor are the Deployment's selector and pod labels (the scaffold's recommended labels).
func labelsFor(name, image string) map[string]string {
	version := ""
	if i := strings.LastIndex(image, ":"); i >= 0 && !strings.Contains(image[i:], "/") {
		version = image[i+1:]
	}
	return map[string]string{
		"app.kubernetes.io/name":       "Memcached",
		"app.kubernetes.io/instance":   name,
		"app.kubernetes.io/version":    version,
		"app.kubernetes.io/part-of":    "memcached-operator",
		"app.kubernetes.io/created-by": "controller-manager",
	}
}

// deploymentFor is the Memcached's Deployment, owned by it (a controller reference).
func (r *MemcachedReconciler) deploymentFor(memcached *cachev1alpha1.Memcached) (*appsv1.Deployment, error) {
	image, err := imageFor(memcached)
	if err != nil {
		return nil, err
	}
	labels := labelsFor(memcached.Name, image)
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: memcached.Name, Namespace: memcached.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(memcached.Spec.Size),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:            "memcached",
						Image:           image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot:             ptr.To(true),
							RunAsUser:                ptr.To[int64](1001),
							AllowPrivilegeEscalation: ptr.To(false),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						Ports:   []corev1.ContainerPort{{ContainerPort: memcachedPort, Name: "memcached"}},
						Command: []string{"memcached", "-m=64", "-o", "modern", "-v"},
					}},
				},
			},
		},
	}
	if err := ctrl.SetControllerReference(memcached, dep, r.Scheme); err != nil {
		return nil, err
	}
	return dep, nil
}

// SetupWithManager registers the controller: Memcacheds, and the Deployments they own.
func (r *MemcachedReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&cachev1alpha1.Memcached{}).
		Owns(&appsv1.Deployment{}).
		Named("memcached").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		Complete(r)
}
