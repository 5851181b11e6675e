package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MemcachedSpec is the desired state of a Memcached. The fields are those of the CRD this repository
// installs (crds/cache.example.com_memcacheds.yaml), not only the operator-sdk sample's: the CRD
// requires size (0 is valid, so it must not be omitted when empty) and defaults image.
type MemcachedSpec struct {
	// Size is the number of memcached pods: the Deployment's replicas.
	// +kubebuilder:validation:Minimum=0
	Size int32 `json:"size"`

	// Image is the container image of memcached; the CRD defaults it.
	// +optional
	Image string `json:"image,omitempty"`
}

// MemcachedStatus is the observed state of a Memcached. This operator sets only Conditions
// (Available, and Degraded while the finalizer runs); ObservedGeneration and Nodes are in the CRD for
// reconstruct's controller and are kept here so that a status update round-trips them unchanged.
type MemcachedStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// +optional
	Nodes []string `json:"nodes,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Memcached is the Schema for the memcacheds API.
type Memcached struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MemcachedSpec   `json:"spec,omitempty"`
	Status MemcachedStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MemcachedList contains a list of Memcached.
type MemcachedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Memcached `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Memcached{}, &MemcachedList{})
}
