// The Go peer of reconstruct's controller in the benchmark: a controller-runtime manager running one
// controller, Memcached, as kubebuilder / operator-sdk scaffold it (docs/BENCHMARKS.md, "The Go
// peer"). Flags, beyond the scaffold's:
//
//	--max-concurrent-reconciles N  workers of the Memcached controller (default 1, the scaffold's)
//	--namespaces A,B               watch only these namespaces (default all, the scaffold's)
//
// and controller-runtime's --kubeconfig. Metrics are served over plain HTTP on
// --metrics-bind-address (the scaffold now defaults to authenticated HTTPS; the benchmark scrapes
// them without credentials).
package main

import (
	"flag"
	"os"
	"strings"

	// Every client-go auth plugin (exec, OIDC, ...), as the scaffold imports them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cachev1alpha1 "reconstruct.local/memcached-operator/api/v1alpha1"
	"reconstruct.local/memcached-operator/internal/controller"
)

var (
	scheme   = runtime.NewScheme()
	setupLog = ctrl.Log.WithName("setup")
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cachev1alpha1.AddToScheme(scheme))
}

func main() {
	var metricsAddr, probeAddr, namespaces string
	var enableLeaderElection bool
	var maxConcurrentReconciles int
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080",
		"The address the metrics endpoint binds to (plain HTTP). Use 0 to disable it.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "The address the probe endpoint binds to.")
	flag.BoolVar(&enableLeaderElection, "leader-elect", false,
		"Enable leader election for controller manager. "+
			"Enabling this will ensure there is only one active controller manager.")
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 1,
		"How many Memcacheds are reconciled at once (the controller's workers).")
	flag.StringVar(&namespaces, "namespaces", "",
		"Comma-separated namespaces to watch; empty: all namespaces.")
	opts := zap.Options{
		Development: true,
	}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()

	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))

	if maxConcurrentReconciles < 1 {
		setupLog.Error(nil, "--max-concurrent-reconciles must be at least 1")
		os.Exit(2)
	}
	cacheOptions := cache.Options{}
	for _, ns := range strings.Split(namespaces, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			if cacheOptions.DefaultNamespaces == nil {
				cacheOptions.DefaultNamespaces = map[string]cache.Config{}
			}
			cacheOptions.DefaultNamespaces[ns] = cache.Config{}
		}
	}

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cacheOptions,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
		LeaderElection:         enableLeaderElection,
		LeaderElectionID:       "86f835c3.example.com",
	})
	if err != nil {
		setupLog.Error(err, "unable to start manager")
		os.Exit(1)
	}

	if err = (&controller.MemcachedReconciler{
		Client:                  mgr.GetClient(),
		Scheme:                  mgr.GetScheme(),
		Recorder:                mgr.GetEventRecorderFor("memcached-controller"),
		MaxConcurrentReconciles: maxConcurrentReconciles,
	}).SetupWithManager(mgr); err != nil {
		setupLog.Error(err, "unable to create controller", "controller", "Memcached")
		os.Exit(1)
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		setupLog.Error(err, "unable to set up health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		setupLog.Error(err, "unable to set up ready check")
		os.Exit(1)
	}

	setupLog.Info("starting manager", "maxConcurrentReconciles", maxConcurrentReconciles, "namespaces", namespaces)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		setupLog.Error(err, "problem running manager")
		os.Exit(1)
	}
}
