package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
)

const k8sDir = "deploy/k8s/"

// k8sObject holds the parts of the manifests the checks read.
type k8sObject struct {
	file     string
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Resources  []string          `yaml:"resources"` // Kustomization
	Spec       struct {
		Selector map[string]any `yaml:"selector"`
		Template *struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
		Ports []struct {
			Port       int `yaml:"port"`
			TargetPort any `yaml:"targetPort"`
		} `yaml:"ports"`
		ScaleTargetRef struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
	} `yaml:"spec"`
}

type podSpec struct {
	EnableServiceLinks            *bool           `yaml:"enableServiceLinks"`
	TerminationGracePeriodSeconds *int            `yaml:"terminationGracePeriodSeconds"`
	SecurityContext               securityContext `yaml:"securityContext"`
	Containers                    []container     `yaml:"containers"`
	InitContainers                []container     `yaml:"initContainers"`
	Volumes                       []volume        `yaml:"volumes"`
}

type securityContext struct {
	RunAsNonRoot             *bool  `yaml:"runAsNonRoot"`
	RunAsUser                *int64 `yaml:"runAsUser"`
	ReadOnlyRootFilesystem   *bool  `yaml:"readOnlyRootFilesystem"`
	AllowPrivilegeEscalation *bool  `yaml:"allowPrivilegeEscalation"`
	Capabilities             struct {
		Drop []string `yaml:"drop"`
	} `yaml:"capabilities"`
}

type volume struct {
	Name     string `yaml:"name"`
	EmptyDir *struct {
		SizeLimit string `yaml:"sizeLimit"`
	} `yaml:"emptyDir"`
}

type httpProbe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"`
	} `yaml:"httpGet"`
}

type container struct {
	Name    string   `yaml:"name"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Ports   []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	EnvFrom []struct {
		ConfigMapRef *struct{ Name string } `yaml:"configMapRef"`
		SecretRef    *struct{ Name string } `yaml:"secretRef"`
	} `yaml:"envFrom"`
	Env []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef    *struct{ Name string } `yaml:"secretKeyRef"`
			ConfigMapKeyRef *struct{ Name string } `yaml:"configMapKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Resources struct {
		Limits map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	ReadinessProbe *httpProbe `yaml:"readinessProbe"`
	LivenessProbe  *httpProbe `yaml:"livenessProbe"`
	Lifecycle      struct {
		PreStop struct {
			Sleep *struct {
				Seconds int `yaml:"seconds"`
			} `yaml:"sleep"`
		} `yaml:"preStop"`
	} `yaml:"lifecycle"`
	SecurityContext securityContext `yaml:"securityContext"`
	VolumeMounts    []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
}

// readK8s decodes every document of every manifest.
func readK8s(p *problems, fs files) []k8sObject {
	var objs []k8sObject
	for _, name := range sortedKeys(fs) {
		if !strings.HasPrefix(name, k8sDir) || path.Ext(name) != ".yaml" {
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader(fs[name]))
		for {
			var o k8sObject
			err := dec.Decode(&o)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				p.add(name, "%v", err)
				break
			}
			o.file = name
			objs = append(objs, o)
		}
	}
	return objs
}

// checkK8s checks the manifests and returns their kurz containers as units.
func checkK8s(p *problems, fs files, img image) []unit {
	objs := readK8s(p, fs)
	configs := map[string]map[string]envValue{} // "ConfigMap/name" → its variables
	byKind := map[string][]k8sObject{}
	for _, o := range objs {
		byKind[o.Kind] = append(byKind[o.Kind], o)
		switch o.Kind {
		case "ConfigMap":
			configs["ConfigMap/"+o.Metadata.Name] = withSource(o.Data, fromLiteral)
		case "Secret":
			configs["Secret/"+o.Metadata.Name] = withSource(o.StringData, fromSecret)
			checkPlaceholderSecret(p, o.file, o.StringData["KURZ_SECRET"])
		}
	}
	for key, env := range configs {
		checkEnvNames(p, k8sDir+key, env)
	}
	checkKustomization(p, fs, byKind["Kustomization"])
	var units []unit
	for _, kind := range []string{"Deployment", "StatefulSet", "Job", "DaemonSet"} {
		for _, o := range byKind[kind] {
			units = append(units, podUnits(p, o, configs, img)...)
		}
	}
	checkK8sWiring(p, byKind)
	return units
}

func withSource(m map[string]string, src string) map[string]envValue {
	out := map[string]envValue{}
	for k, v := range m {
		out[k] = envValue{v, src}
	}
	return out
}

// podUnits turns a workload's containers into units, checking their
// security settings on the way.
func podUnits(p *problems, o k8sObject, configs map[string]map[string]envValue, img image) []unit {
	if o.Spec.Template == nil {
		p.add(o.file, "%s %s has no pod template", o.Kind, o.Metadata.Name)
		return nil
	}
	pod := o.Spec.Template.Spec
	where := fmt.Sprintf("%s %s %s", o.file, o.Kind, o.Metadata.Name)
	if pod.EnableServiceLinks == nil || *pod.EnableServiceLinks {
		p.add(where, "enableServiceLinks: false is missing: Services named kurz-* would add KURZ_*_PORT variables")
	}
	grace := 30
	if pod.TerminationGracePeriodSeconds != nil {
		grace = *pod.TerminationGracePeriodSeconds
	}
	var units []unit
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		cw := where + " container " + c.Name
		checkContainerSecurity(p, cw, pod.SecurityContext, c.SecurityContext)
		env := maps.Clone(img.env)
		for _, ef := range c.EnvFrom {
			switch {
			case ef.ConfigMapRef != nil:
				maps.Copy(env, refEnv(p, cw, configs, "ConfigMap/"+ef.ConfigMapRef.Name))
			case ef.SecretRef != nil:
				maps.Copy(env, refEnv(p, cw, configs, "Secret/"+ef.SecretRef.Name))
			}
		}
		for _, e := range c.Env {
			src := fromLiteral
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				src = fromSecret
			}
			env[e.Name] = envValue{e.Value, src}
		}
		u := unit{where: cw, role: roleOf(slices.Concat(c.Command, c.Args)), env: env,
			needProbes: o.Kind != "Job", needLiveness: o.Kind != "Job"}
		ports := map[string]int{}
		for _, port := range c.Ports {
			ports[port.Name] = port.ContainerPort
			u.ports = append(u.ports, port.ContainerPort)
		}
		if o.Kind != "Job" && len(u.ports) == 0 {
			u.ports = []int{} // declared none: the port check fails
		}
		for kind, pr := range map[string]*httpProbe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
			if pr != nil && pr.HTTPGet != nil {
				u.probes = append(u.probes, probe{kind, pr.HTTPGet.Path, resolvePort(pr.HTTPGet.Port, ports)})
			}
		}
		u.stopGrace = time.Duration(grace) * time.Second
		if s := c.Lifecycle.PreStop.Sleep; s != nil {
			u.stopGrace -= time.Duration(s.Seconds) * time.Second
		}
		if m, ok := c.Resources.Limits["memory"]; ok {
			n, err := parseBytes(m)
			if err != nil {
				p.add(cw, "memory limit: %v", err)
			}
			u.memLimit = n
		}
		for _, m := range c.VolumeMounts {
			if m.ReadOnly {
				continue
			}
			u.writable = append(u.writable, m.MountPath)
			for _, v := range pod.Volumes {
				if v.Name == m.Name && v.EmptyDir != nil && v.EmptyDir.SizeLimit != "" &&
					strings.HasPrefix(env["KURZ_SPOOL_DIR"].value+"/", strings.TrimSuffix(m.MountPath, "/")+"/") {
					u.spoolRoom, _ = parseBytes(v.EmptyDir.SizeLimit)
				}
			}
		}
		units = append(units, u)
	}
	return units
}

func refEnv(p *problems, where string, configs map[string]map[string]envValue, ref string) map[string]envValue {
	env, ok := configs[ref]
	if !ok {
		p.add(where, "envFrom %s: no such object in %s", ref, k8sDir)
	}
	return env
}

// resolvePort turns a probe's or Service's port (a number or a
// container port's name) into a number; 0 when it names nothing.
func resolvePort(v any, named map[string]int) int {
	switch x := v.(type) {
	case int:
		return x
	case string:
		if n, err := strconv.Atoi(x); err == nil {
			return n
		}
		return named[x]
	}
	return 0
}

func checkContainerSecurity(p *problems, where string, pod, c securityContext) {
	isTrue := func(b *bool) bool { return b != nil && *b }
	if !isTrue(c.RunAsNonRoot) && !isTrue(pod.RunAsNonRoot) {
		p.add(where, "runAsNonRoot: true is missing")
	}
	for _, uid := range []*int64{pod.RunAsUser, c.RunAsUser} {
		if uid != nil && *uid == 0 {
			p.add(where, "runs as uid 0")
		}
	}
	if !isTrue(c.ReadOnlyRootFilesystem) {
		p.add(where, "readOnlyRootFilesystem: true is missing")
	}
	if c.AllowPrivilegeEscalation == nil || *c.AllowPrivilegeEscalation {
		p.add(where, "allowPrivilegeEscalation: false is missing")
	}
	if !slices.Contains(c.Capabilities.Drop, "ALL") {
		p.add(where, "capabilities.drop: [ALL] is missing")
	}
}

// checkK8sWiring: Services, the HPA and the PDB point at the workloads
// they are meant for, and every file is in the kustomization.
func checkK8sWiring(p *problems, byKind map[string][]k8sObject) {
	deployments := map[string]k8sObject{}
	for _, d := range byKind["Deployment"] {
		deployments[d.Metadata.Name] = d
		if sel := matchLabels(d.Spec.Selector); !selects(sel, d.Spec.Template.Metadata.Labels) {
			p.add(d.file, "the selector %v does not match the pod labels", sel)
		}
	}
	edge := ""
	for name, d := range deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			if roleOf(slices.Concat(c.Command, c.Args)) == roleEdge {
				edge = name
			}
		}
	}
	hpaOK := false
	for _, h := range byKind["HorizontalPodAutoscaler"] {
		if h.Spec.ScaleTargetRef.Kind == "Deployment" && h.Spec.ScaleTargetRef.Name == edge {
			hpaOK = true
		} else {
			p.add(h.file, "scales %s %s, not the edge's Deployment %q", h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name, edge)
		}
	}
	if !hpaOK {
		p.add(k8sDir, "no HorizontalPodAutoscaler scales the edge")
	}
	pdbOK := false
	for _, b := range byKind["PodDisruptionBudget"] {
		if d, ok := deployments[edge]; ok && selects(matchLabels(b.Spec.Selector), d.Spec.Template.Metadata.Labels) {
			pdbOK = true
		}
	}
	if !pdbOK {
		p.add(k8sDir, "no PodDisruptionBudget selects the edge's pods")
	}
	for _, s := range byKind["Service"] {
		checkService(p, s, deployments)
	}
}

func checkService(p *problems, s k8sObject, deployments map[string]k8sObject) {
	sel := map[string]string{}
	for k, v := range s.Spec.Selector {
		sel[k] = yamlScalar(v)
	}
	for _, d := range deployments {
		labels := d.Spec.Template.Metadata.Labels
		if !selects(sel, labels) {
			continue
		}
		named := map[string]int{}
		var ports []int
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, port := range c.Ports {
				named[port.Name] = port.ContainerPort
				ports = append(ports, port.ContainerPort)
			}
		}
		for _, sp := range s.Spec.Ports {
			if t := resolvePort(sp.TargetPort, named); !slices.Contains(ports, t) {
				p.add(s.file, "Service %s targets port %v, which %s's containers do not declare", s.Metadata.Name, sp.TargetPort, d.Metadata.Name)
			}
		}
		return
	}
	p.add(s.file, "Service %s selects no Deployment's pods (%v)", s.Metadata.Name, sel)
}

func matchLabels(sel map[string]any) map[string]string {
	out := map[string]string{}
	if ml, ok := sel["matchLabels"].(map[string]any); ok {
		for k, v := range ml {
			out[k] = yamlScalar(v)
		}
	}
	return out
}

// selects reports whether a non-empty selector matches labels.
func selects(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func checkKustomization(p *problems, fs files, ks []k8sObject) {
	if len(ks) != 1 {
		p.add(k8sDir, "want one kustomization.yaml, found %d", len(ks))
		return
	}
	listed := ks[0].Resources
	for _, name := range sortedKeys(fs) {
		rel, ok := strings.CutPrefix(name, k8sDir)
		if ok && path.Ext(rel) == ".yaml" && rel != "kustomization.yaml" && !slices.Contains(listed, rel) {
			p.add(ks[0].file, "resources lacks %s", rel)
		}
	}
	for _, r := range listed {
		if _, ok := fs[k8sDir+r]; !ok {
			p.add(ks[0].file, "resources lists %s, which does not exist", r)
		}
	}
}
