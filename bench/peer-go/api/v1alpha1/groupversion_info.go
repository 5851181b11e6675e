// Package v1alpha1 holds the Go types of the Memcached custom resource, API group
// cache.example.com, version v1alpha1: the CRD in crds/cache.example.com_memcacheds.yaml of this
// repository, which reconstruct's controller reconciles too.
//
// zz_generated.deepcopy.go is controller-gen's, from the module proxy: `go generate ./...`.
// +kubebuilder:object:generate=true
// +groupName=cache.example.com
package v1alpha1

//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.18.0 object paths=.

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of these types.
	GroupVersion = schema.GroupVersion{Group: "cache.example.com", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this package with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this group and version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
