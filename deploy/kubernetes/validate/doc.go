// Package validate checks assignd's Kubernetes manifests without a
// cluster: its test builds every kustomization (kustomize as a library),
// decodes each object strictly into its Kubernetes API type and checks that
// the objects fit together and fit assignd (see validate_test.go).
//
// It is a module of its own, so that the Kubernetes libraries stay out of
// assignd's module; run it with
//
//	cd deploy/kubernetes/validate && go test ./...
package validate
