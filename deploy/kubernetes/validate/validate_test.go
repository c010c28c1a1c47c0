package validate

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// repoRoot is the assignd checkout this module sits in.
const repoRoot = "../../.."

// serviceMonitor is the part of the Prometheus Operator's ServiceMonitor
// (monitoring.coreos.com/v1) the manifests use. The operator's Go types
// would bring controller-runtime into this module for one object; the
// strict decoding below still rejects any field not declared here, so a
// misspelt field fails this test instead of being ignored.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port     string `json:"port"`
			Path     string `json:"path"`
			Interval string `json:"interval"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// objects is one kustomization built and decoded.
type objects struct {
	deployments     []*appsv1.Deployment
	services        []*corev1.Service
	configMaps      []*corev1.ConfigMap
	pdbs            []*policyv1.PodDisruptionBudget
	networkPolicies []*networkingv1.NetworkPolicy
	serviceMonitors []*serviceMonitor
}

// build runs kustomize on dir and decodes every object strictly (unknown
// or misspelt fields are errors) into its API type; an object of a kind
// this test does not know is an error too.
func build(t *testing.T, dir string) *objects {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var o objects
	// kinds makes, for each kind this test checks, the next object of it in o.
	kinds := map[string]func() any{
		"apps/v1/Deployment":                      func() any { return next(&o.deployments) },
		"/v1/Service":                             func() any { return next(&o.services) },
		"/v1/ConfigMap":                           func() any { return next(&o.configMaps) },
		"policy/v1/PodDisruptionBudget":           func() any { return next(&o.pdbs) },
		"networking.k8s.io/v1/NetworkPolicy":      func() any { return next(&o.networkPolicies) },
		"monitoring.coreos.com/v1/ServiceMonitor": func() any { return next(&o.serviceMonitors) },
	}
	for _, r := range rm.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		gvk := r.GetGvk()
		key := gvk.Group + "/" + gvk.Version + "/" + gvk.Kind
		newObject, ok := kinds[key]
		if !ok {
			t.Errorf("%s: %s %s: a kind this test does not check", dir, key, r.GetName())
			continue
		}
		into := newObject()
		if err := yaml.UnmarshalStrict(y, into); err != nil {
			t.Errorf("%s: %s %s does not decode strictly: %v", dir, key, r.GetName(), err)
		}
	}
	if len(o.deployments) != 1 || len(o.services) != 1 || len(o.configMaps) != 1 || len(o.pdbs) != 1 {
		t.Fatalf("%s: want one Deployment, Service, ConfigMap and PodDisruptionBudget; got %d, %d, %d, %d",
			dir, len(o.deployments), len(o.services), len(o.configMaps), len(o.pdbs))
	}
	return &o
}

// next appends a new object to list and returns it.
func next[T any](list *[]*T) any {
	v := new(T)
	*list = append(*list, v)
	return v
}

// kustomizations are the directories to build: the base and every overlay.
func kustomizations(t *testing.T) []string {
	dirs := []string{filepath.Join("..", "base")}
	overlays, err := filepath.Glob(filepath.Join("..", "overlays", "*", "kustomization.yaml"))
	if err != nil || len(overlays) == 0 {
		t.Fatalf("no overlays found (%v)", err)
	}
	for _, o := range overlays {
		dirs = append(dirs, filepath.Dir(o))
	}
	return dirs
}

// assigndHelp is `assignd --help` of this checkout.
func assigndHelp(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "run", "./cmd/assignd", "--help")
	cmd.Dir = repoRoot
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run ./cmd/assignd --help: %v\n%s", err, errOut.String())
	}
	return out.String()
}

func TestManifests(t *testing.T) {
	help := assigndHelp(t)
	for _, dir := range kustomizations(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			o := build(t, dir)
			checkObjects(t, o, help)
		})
	}
}

func checkObjects(t *testing.T, o *objects, help string) {
	d := o.deployments[0]
	pod := d.Spec.Template
	podLabels := labels.Set(pod.Labels)
	matches := func(what string, sel *metav1.LabelSelector) {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || s.Empty() || !s.Matches(podLabels) {
			t.Errorf("%s selector %v does not select the Deployment's pods %v (%v)", what, sel, pod.Labels, err)
		}
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("Deployment replicas %v, want 3", d.Spec.Replicas)
	}
	matches("Deployment", d.Spec.Selector)
	matches("PodDisruptionBudget", o.pdbs[0].Spec.Selector)
	if a := pod.Spec.Affinity; a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		t.Error("no pod anti-affinity")
	} else {
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			matches("anti-affinity", w.PodAffinityTerm.LabelSelector)
		}
	}

	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		// Every ASSIGND_* variable is one assignd knows (--help lists
		// each flag's variable); a misspelt one would be ignored silently.
		if strings.HasPrefix(e.Name, "ASSIGND_") && !regexp.MustCompile(`\benv `+e.Name+`\b`).MatchString(help) {
			t.Errorf("env %s is not a variable of assignd (not in assignd --help)", e.Name)
		}
	}

	// Ports: the container's named ports are the ports assignd listens on.
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for name, variable := range map[string]string{"grpc": "ASSIGND_LISTEN", "metrics": "ASSIGND_METRICS_LISTEN"} {
		host, port, err := net.SplitHostPort(env[variable])
		if err != nil {
			t.Errorf("%s=%q: %v", variable, env[variable], err)
			continue
		}
		if host != "" && host != "0.0.0.0" && host != "::" {
			t.Errorf("%s=%q listens on %s only; other pods and the kubelet cannot reach it", variable, env[variable], host)
		}
		if fmt.Sprint(ports[name]) != port {
			t.Errorf("container port %q is %d, but %s=%q", name, ports[name], variable, env[variable])
		}
	}

	// Probes on assignd's HTTP paths, on the metrics port.
	for _, p := range []struct {
		what  string
		probe *corev1.Probe
		path  string
	}{{"readiness", c.ReadinessProbe, "/readyz"}, {"liveness", c.LivenessProbe, "/healthz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", p.what)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port.String() != "metrics" {
			t.Errorf("%s probe on %s port %s, want %s on port metrics", p.what, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path)
		}
	}

	// Memory: a limit for automemlimit to derive GOMEMLIMIT (90%) and the
	// memory budget (¾ of that) from, and the request equal to it. An
	// explicit budget must fit under GOMEMLIMIT.
	limit, request := c.Resources.Limits[corev1.ResourceMemory], c.Resources.Requests[corev1.ResourceMemory]
	if limit.IsZero() || limit.Cmp(request) != 0 {
		t.Errorf("memory request %s and limit %s: want a limit, and the request equal to it", request.String(), limit.String())
	}
	if _, ok := env["GOMEMLIMIT"]; ok {
		t.Error("GOMEMLIMIT is set; assignd derives it from the memory limit")
	}
	if b, ok := env["ASSIGND_MEMORY_BUDGET"]; ok {
		budget, err := resource.ParseQuantity(b)
		if err != nil || budget.Value()*10/9 > limit.Value() {
			t.Errorf("ASSIGND_MEMORY_BUDGET=%s does not fit under GOMEMLIMIT (90%% of %s)", b, limit.String())
		}
	}

	// Non-root, matching the image's user.
	ps, cs := pod.Spec.SecurityContext, c.SecurityContext
	if ps == nil || ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot || ps.RunAsUser == nil || *ps.RunAsUser != 65532 {
		t.Error("the pod must run as non-root user 65532 (the image's user)")
	}
	if cs == nil || cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem || cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation ||
		cs.Capabilities == nil || len(cs.Capabilities.Drop) != 1 || cs.Capabilities.Drop[0] != "ALL" {
		t.Error("the container must have a read-only root, no privilege escalation and drop ALL capabilities")
	}

	// Headless Service selecting the pods, its ports on the container's.
	svc := o.services[0]
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("Service clusterIP %q: want None (headless, for the client's dns:/// round robin)", svc.Spec.ClusterIP)
	}
	matches("Service", &metav1.LabelSelector{MatchLabels: svc.Spec.Selector})
	svcPorts := map[string]bool{}
	for _, p := range svc.Spec.Ports {
		svcPorts[p.Name] = true
		if ports[p.TargetPort.String()] != p.Port {
			t.Errorf("Service port %s: %d → %s, but the container's %s is %d", p.Name, p.Port, p.TargetPort.String(), p.TargetPort.String(), ports[p.TargetPort.String()])
		}
	}

	checkPolicy(t, o, c, pod.Spec.Volumes, env)
	checkTLS(t, c, pod.Spec.Volumes, env)

	for _, sm := range o.serviceMonitors {
		s, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
		if err != nil || s.Empty() || !s.Matches(labels.Set(svc.Labels)) {
			t.Errorf("ServiceMonitor selector %v does not select the Service (labels %v)", sm.Spec.Selector, svc.Labels)
		}
		for _, e := range sm.Spec.Endpoints {
			if !svcPorts[e.Port] || e.Port != "metrics" || e.Path != "/metrics" {
				t.Errorf("ServiceMonitor endpoint %s%s: want port metrics, path /metrics", e.Port, e.Path)
			}
		}
	}
	for _, np := range o.networkPolicies {
		matches("NetworkPolicy "+np.Name, &np.Spec.PodSelector)
		for _, rule := range np.Spec.Ingress {
			for _, p := range rule.Ports {
				if p.Port == nil || ports[p.Port.String()] == 0 {
					t.Errorf("NetworkPolicy %s: port %v is not a container port", np.Name, p.Port)
				}
			}
		}
	}
}

// mountFor returns the volume mounted at dir (exactly, not through a
// subPath) and its mount.
func mountFor(c corev1.Container, volumes []corev1.Volume, dir string) (*corev1.Volume, *corev1.VolumeMount) {
	for i, m := range c.VolumeMounts {
		if filepath.Clean(m.MountPath) == dir {
			for j := range volumes {
				if volumes[j].Name == m.Name {
					return &volumes[j], &c.VolumeMounts[i]
				}
			}
		}
	}
	return nil, nil
}

// checkPolicy: ASSIGND_POLICY names a file of the policy ConfigMap, mounted
// as a directory (a subPath mount never sees the kubelet's updates, so hot
// reload would not happen), and the file passes `assignctl policy check`.
func checkPolicy(t *testing.T, o *objects, c corev1.Container, volumes []corev1.Volume, env map[string]string) {
	path := env["ASSIGND_POLICY"]
	if path == "" {
		t.Error("ASSIGND_POLICY is not set")
		return
	}
	v, m := mountFor(c, volumes, filepath.Dir(path))
	if v == nil || v.ConfigMap == nil {
		t.Errorf("ASSIGND_POLICY=%s: no ConfigMap volume mounted at %s", path, filepath.Dir(path))
		return
	}
	if m.SubPath != "" || !m.ReadOnly {
		t.Errorf("policy mount: want a read-only directory mount, no subPath (hot reload)")
	}
	cm := o.configMaps[0]
	if cm.Name != v.ConfigMap.Name {
		t.Fatalf("policy volume names ConfigMap %s, the manifests have %s", v.ConfigMap.Name, cm.Name)
	}
	policy, ok := cm.Data[filepath.Base(path)]
	if !ok {
		t.Fatalf("ConfigMap %s has no key %s", cm.Name, filepath.Base(path))
	}
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "./cmd/assignctl", "policy", "check", file)
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("assignctl policy check of the ConfigMap's policy: %v\n%s", err, out)
	}
}

// checkTLS: the TLS files assignd is given are keys of a mounted Secret.
func checkTLS(t *testing.T, c corev1.Container, volumes []corev1.Volume, env map[string]string) {
	for _, variable := range []string{"ASSIGND_TLS_CERT", "ASSIGND_TLS_KEY", "ASSIGND_TLS_CLIENT_CA"} {
		path, ok := env[variable]
		if !ok {
			continue
		}
		v, _ := mountFor(c, volumes, filepath.Dir(path))
		if v == nil || v.Secret == nil {
			t.Errorf("%s=%s: no Secret volume mounted at %s", variable, path, filepath.Dir(path))
			continue
		}
		want := map[string]string{"ASSIGND_TLS_CERT": corev1.TLSCertKey, "ASSIGND_TLS_KEY": corev1.TLSPrivateKeyKey, "ASSIGND_TLS_CLIENT_CA": "ca.crt"}[variable]
		if filepath.Base(path) != want {
			t.Errorf("%s=%s: want the Secret's %s key (kubernetes.io/tls, as cert-manager writes it)", variable, path, want)
		}
	}
	if _, ok := env["ASSIGND_TLS_CERT"]; ok != (env["ASSIGND_TLS_KEY"] != "") {
		t.Error("ASSIGND_TLS_CERT and ASSIGND_TLS_KEY go together")
	}
}
