// Command health-verdicts gives the verdicts of Argo CD and kstatus on Kubernetes objects, with their own
// Go code: Argo CD's health evaluation (gitops-engine's GetResourceHealth, as Argo CD's application
// controller calls it, with the Lua health checks of an argocd-cm ConfigMap read by Argo CD's own
// settings code) and kstatus (sigs.k8s.io/cli-utils, as `kubectl wait`-like tools, Flux and cli-utils'
// applier call it).
//
// Input on stdin, one JSON document: {"argocdCm": <the argocd-cm ConfigMap>, "objects": [<object>...]}.
// Output on stdout, one JSON array, an entry per object in order:
// {"argocd": {"status": "Healthy", "message": "..."}, "kstatus": {"status": "Current", "message": "..."}}.
// An object Argo CD has no health check for gets argocd.status "" (Argo CD then ignores its health).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/lua"
	"github.com/argoproj/argo-cd/v3/util/settings"
	"github.com/argoproj/gitops-engine/pkg/health"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type input struct {
	ArgocdCm corev1.ConfigMap `json:"argocdCm"`
	Objects  []json.RawMessage `json:"objects"`
}

type verdict struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

type verdicts struct {
	Argocd  verdict `json:"argocd"`
	Kstatus verdict `json:"kstatus"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "health-verdicts:", err)
		os.Exit(1)
	}
}

func run() error {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		return fmt.Errorf("reading the input: %w", err)
	}
	overrides, err := resourceOverrides(in.ArgocdCm)
	if err != nil {
		return err
	}
	out := make([]verdicts, 0, len(in.Objects))
	for i, raw := range in.Objects {
		// As a client decodes an object from the API server: whole numbers as int64, which kstatus expects.
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("object %d: %w", i, err)
		}
		argocd, err := health.GetResourceHealth(obj, lua.ResourceHealthOverrides(overrides))
		if err != nil {
			return fmt.Errorf("object %d (%s %s): Argo CD: %w", i, obj.GetKind(), obj.GetName(), err)
		}
		kstatus, err := status.Compute(obj)
		if err != nil {
			return fmt.Errorf("object %d (%s %s): kstatus: %w", i, obj.GetKind(), obj.GetName(), err)
		}
		v := verdicts{Kstatus: verdict{Status: kstatus.Status.String(), Message: kstatus.Message}}
		if argocd != nil {
			v.Argocd = verdict{Status: string(argocd.Status), Message: argocd.Message}
		}
		out = append(out, v)
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// resourceOverrides reads the ConfigMap as Argo CD does: its SettingsManager, over a client that holds it.
func resourceOverrides(cm corev1.ConfigMap) (map[string]v1alpha1.ResourceOverride, error) {
	const namespace = "argocd"
	cm.Name, cm.Namespace = common.ArgoCDConfigMapName, namespace
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels["app.kubernetes.io/part-of"] = "argocd"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
		Name: common.ArgoCDSecretName, Namespace: namespace,
		Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"},
	}}
	client := fake.NewClientset(&cm, secret)
	manager := settings.NewSettingsManager(context.Background(), client, namespace)
	return manager.GetResourceOverrides()
}
