# Shortcuts for developers; CI runs scripts/test.sh directly (.ci/run).
# The code-generation and lint tools are pinned in tools/go.mod and built by `go tool`.

BUF := go tool -modfile=tools/go.mod buf

.PHONY: run test generate lint bench help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

run: ## serve on the embedded defaults (127.0.0.1:7070, metrics on 127.0.0.1:9464)
	go run ./cmd/assignd

test: ## the whole test suite, as CI runs it
	./scripts/test.sh

generate: ## regenerate the Go code of proto/ after editing a .proto file, and the flag table of docs/operations.md
	$(BUF) format -w
	$(BUF) generate
	go generate ./cmd/assignd

lint: ## gofmt, go vet, staticcheck, import directions, Markdown links; buf lint and format of the API
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt-ed:"; echo "$$out"; exit 1; fi
	go vet ./...
	go tool -modfile=tools/go.mod staticcheck ./...
	./scripts/deps_check.sh
	./scripts/links_check.sh
	$(BUF) lint
	$(BUF) format -d --exit-code

bench: ## the gRPC end-to-end benchmark (loopback)
	go run ./cmd/assignd-bench
