# vtpmctl — see README.md. `make test` is what CI runs.
SHELL      := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO         ?= go
# libvirt-go-module loads libvirt.so at run time, so vtpmctl builds and
# starts on machines without libvirt.
TAGS       := libvirt_dlopen
FUZZTIME   ?= 8s
DEVCLOUD_DIR ?= /var/tmp/vtpmctl-devcloud
export DEVCLOUD_DIR


.PHONY: ansible docs ovmf ovmf-boot pyyaml dist dist-test build test test-releases unit cover lint fuzz bench examples-check browser integration demo devcloud-up devcloud-down devcloud-wipe devcloud-down-all devcloud-status clean

# --version says which build this is (GOFLAGS may turn Go's own VCS stamp off).
COMMIT     := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS    := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

## docs: the CLI reference in docs/cli regenerated from the commands
## (TestCLIReference fails when it drifts), then the JSON Schemas in
## docs/schemas from the result types (TestSchemasCurrent).
docs:
	$(GO) run -tags '$(TAGS)' ./cmd/vtpmctl man --markdown --dir docs/cli
	$(GO) run -tags '$(TAGS)' ./tools/schemagen -o docs/schemas

build:
	$(GO) build -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o bin/vtpmctl ./cmd/vtpmctl

## dist: vtpmctl for linux/amd64 and arm64 (glibc its only shared library,
## libvirt loaded at run time), man page, completions, .deb and .rpm (nfpm),
## SHA256SUMS, in dist/ (installs Debian's arm64 cross compiler once).
dist:
	bash packaging/dist.sh

## dist-test: the amd64 .deb installed in a fresh debootstrap chroot, run
## there (--version, check, host check without libvirt), removed (~30 s).
## The chroot comes from the machine's own Debian mirror (its apt sources;
## VTPMCTL_DEBIAN_MIRROR=URL overrides), never a public default.
dist-test: dist
	@mirror=$$(bash devcloud/debian-mirror.sh) && MIRROR=$$mirror bash packaging/dist-test.sh

## test: everything CI runs: lint, unit tests, a short fuzz of every parser,
## the examples, the packages installed in a fresh Debian, then the local
## cloud and the integration tests against it.
PHASES := lint unit ovmf-boot fuzz examples-check dist-test integration
test:
	@log=$$(mktemp); rc=0; \
	for p in $(PHASES); do s=$$(date +%s); $(MAKE) --no-print-directory $$p; r=$$?; \
	  echo "$$p $$(( $$(date +%s) - s )) $$r" >> $$log; [ $$r = 0 ] || { rc=$$r; break; }; done; \
	echo "== make test: time per phase"; \
	awk '{ printf "  %-15s %6d s  %s\n", $$1, $$2, ($$3 == 0 ? "ok" : "FAILED") ; t += $$2 } END { printf "  %-15s %6d s\n", "total", t }' $$log; \
	rm -f $$log; exit $$rc

# Every go test run closes with "tests: N passed, N failed, N skipped".
GOTEST = set -o pipefail; $(GO) test -json
SUMMARY = $(GO) run ./tools/testsummary

# The uefi package reads the real OVMF variable templates (Debian's ovmf
# package, installed once as root, as the local cloud also does). The
# output tests read our YAML with PyYAML, as Ansible does: python3-yaml
# is installed once, and its absence is a failure here, not a skip.
unit: ovmf pyyaml
	@export VTPMCTL_REQUIRE_PYYAML=1; $(GOTEST) -tags '$(TAGS)' -count=1 ./... | $(SUMMARY)

pyyaml:
	@python3 -c 'import yaml' 2> /dev/null || { $(APT_UPDATE) && $(APT_INSTALL) python3-yaml > /dev/null; } || \
	  echo "pyyaml: python3-yaml could not be installed: TestPyYAMLReadsOurYAML and TestYAMLReadAsYAML11 will fail" >&2

# virt-fw-vars (python3-virt-firmware) is the independent reader uefi's
# tests compare every template with: TestTemplatesAgainstVirtFwVars fails
# without it, so it is installed here, on this machine, once (as root).
# Debian ships it from trixie on: a machine of such a suite installs it
# from its own sources. Bookworm has none, so trixie's .deb is fetched
# alone (architecture all; its dependencies python3-cryptography,
# -pefile and -importlib-resources are all in bookworm) through a private
# apt configuration: a sources list, lists and cache of its own in a
# temporary directory, from the machine's own Debian mirror
# (devcloud/debian-mirror.sh). The machine's sources never name trixie,
# so no other package is upgraded from it; apt installs the .deb with
# its dependencies from the machine's suite. A failure says so in one
# line; the test then fails by name.
APT_INSTALL   = DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends
APT_UPDATE    = apt-get -o DPkg::Lock::Timeout=900 update -qq
VIRT_FW_SUITE ?= trixie
ovmf:
	@test -f /usr/share/OVMF/OVMF_VARS_4M.ms.fd || { $(APT_UPDATE) && $(APT_INSTALL) ovmf > /dev/null; }
	@command -v qemu-system-x86_64 > /dev/null || { $(APT_UPDATE) && $(APT_INSTALL) qemu-system-x86 > /dev/null; }
	@command -v virt-fw-vars > /dev/null || { $(APT_UPDATE) && \
	  if apt-cache show python3-virt-firmware > /dev/null 2>&1; then $(APT_INSTALL) python3-virt-firmware > /dev/null; \
	  else \
	    d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && mirror=$$(bash devcloud/debian-mirror.sh) && \
	    mkdir -p "$$d/lists/partial" "$$d/cache/archives/partial" && chown -R _apt "$$d" && \
	    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $$mirror $(VIRT_FW_SUITE) main" > "$$d/sources.list" && \
	    private="-o Dir::Etc::SourceList=$$d/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$$d/lists -o Dir::Cache=$$d/cache" && \
	    apt-get $$private update -qq && (cd "$$d" && apt-get $$private download python3-virt-firmware > /dev/null) && \
	    $(APT_INSTALL) "$$d"/python3-virt-firmware_*_all.deb > /dev/null; \
	  fi; } || echo "ovmf: virt-fw-vars could not be installed: TestTemplatesAgainstVirtFwVars will fail" >&2

## ovmf-boot: the real firmware reads what host secure-boot update
## writes: Debian's OVMF (Secure Boot, SMM, under TCG) booted under QEMU
## to its boot manager on each store shape update wrote (the 4 MiB
## template, a compacted store, an interrupted-write remnant, a store the
## firmware itself wrote after one), then the store it left read back:
## PK, KEK, db and dbx as written, no variable lost; and a store update
## refuses (flash written past the records) repaired by one boot, then
## updated and booted (~30 s).
ovmf-boot: ovmf
	@$(GOTEST) -tags '$(TAGS) ovmf' -count=1 -run 'TestOVMF' -v ./app/secureboot | $(SUMMARY)

## cover: statement coverage per package, each package by its own unit
## tests alone (no cloud; the API packages against the strict fakecloud or
## the synthetic cloud): what a package's tests prove about it, not what
## another package's tests happen to run through.
cover:
	@$(GO) test -tags '$(TAGS)' -count=1 -coverprofile=/tmp/vtpmctl-cover.out ./... > /dev/null
	@$(GO) run ./tools/coverage /tmp/vtpmctl-cover.out

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet -tags '$(TAGS)' ./...
	$(GO) vet -tags '$(TAGS) integration' ./...
	$(GO) vet -tags '$(TAGS) ovmf' ./app/secureboot

## fuzz: every fuzz target for FUZZTIME each (scripts/fuzz.sh: how targets
## are found, and the one failure that is Go's, not the target's).
fuzz:
	@GO='$(GO)' TAGS='$(TAGS)' FUZZTIME='$(FUZZTIME)' bash scripts/fuzz.sh

## bench: Go benchmarks, then vtpmctl against an openstack-client loop on
## the local cloud (200 images, 100 flavors; minutes, mostly the loop), then
## the secret audit of GUESTS vTPM guests over PROJECTS projects (the first
## run builds them on the fake compute: long; later runs reuse them), then
## the scale table: secrets/hosts audits and plan verify against a synthetic
## cloud of SCALE_GUESTS guests (requests vs. floor, peak RSS, connections),
## then the same cloud answering after a service time: 20 ms a request at
## 10,000 guests (failing below the requests in flight issue 32 asks for),
## and the "real" profile at 50,000 (requests in flight, the critical path
## and the bound they set beside the wall time), then secrets audit at
## 500,000 guests, failing past 300 MB peak RSS (issue 32's figure).
bench: devcloud-up build
	$(GO) test -tags '$(TAGS)' -run '^$$' -bench . -benchmem ./...
	$(GO) run ./tools/planbench -vms 100000 -max-rss-mb 200
	bash bench/vs_openstack.sh
	$(GO) run ./tools/secretsbench -guests $${GUESTS:-2000} -projects $${PROJECTS:-20}
	$(GO) run ./tools/scalebench -vtpmctl bin/vtpmctl -guests $${SCALE_GUESTS:-50000} -projects $${SCALE_PROJECTS:-500} -hypervisors $${SCALE_HYPERVISORS:-2000} -paging $${SCALE_PAGING:-old}
	$(GO) run ./tools/scalebench -vtpmctl bin/vtpmctl -guests 10000 -projects 100 -hypervisors 500 -plan-vms 1000 -runs secrets,secrets-noacls,planverify \
	  -latency 20ms -want-in-flight secrets=6.8,secrets-noacls=3,planverify=5
	$(GO) run ./tools/scalebench -vtpmctl bin/vtpmctl -guests 50000 -projects 500 -hypervisors 2000 -runs secrets,secrets-noacls,planverify -latency real
	$(GO) run ./tools/scalebench -vtpmctl bin/vtpmctl -guests 500000 -projects 5000 -hypervisors 5000 -runs secrets -cache-pages 0 -max-rss-mb 300

## ansible: Debian's ansible-core (as root, once): the playbooks' syntax
## check here, and TestIntegrationAnsibleHostAudit runs host-audit.yml live.
ansible:
	@command -v ansible-playbook > /dev/null || { apt-get -o DPkg::Lock::Timeout=900 update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends ansible-core > /dev/null; }

## examples-check: ansible-playbook --syntax-check of the fleet playbooks
## (installs Debian's ansible-core once, as root); promtool check and test
## of the alert rules (promtool unpacked from Debian's prometheus package).
examples-check: ansible
	ANSIBLE_LOCALHOST_WARNING=false ansible-playbook --syntax-check -i examples/ansible/inventory.ini examples/ansible/host-audit.yml
	ANSIBLE_LOCALHOST_WARNING=false ansible-playbook --syntax-check -i examples/ansible/inventory.ini examples/ansible/kolla-host-check.yml
	@# promtool from Debian's prometheus package, unpacked (no daemon installed or started)
	@test -x bin/tools/promtool || { mkdir -p bin/tools/deb && cd bin/tools/deb && \
	  { apt-get download prometheus > /dev/null 2>&1 || { apt-get -o DPkg::Lock::Timeout=900 update -qq && apt-get download prometheus > /dev/null; }; } && \
	  dpkg-deb -x prometheus_*.deb x && cp x/usr/bin/promtool ../promtool && cd .. && rm -rf deb; }
	bin/tools/promtool check rules examples/prometheus/vtpmctl-alerts.yml
	bin/tools/promtool test rules examples/prometheus/vtpmctl-alerts_test.yml

## browser: Debian's chromium, for the HTML report test (as root, once).
browser:
	@command -v chromium > /dev/null || { apt-get -o DPkg::Lock::Timeout=900 update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends chromium > /dev/null; }

## integration: the integration tests against each release's local cloud
## (started here; root for the first apt). RELEASES picks the clouds: zed
## and 2025.1 must come up; 2026.1 and 2026.2 (Debian's moving suites) are
## reported in one line when the archive cannot build them that day.
RELEASES ?= zed 2025.1 2026.1 2026.2
integration: browser ansible
	@bash devcloud/integration.sh $(RELEASES)

## test-releases: the same, failing when any release cannot be built.
test-releases: browser ansible
	@bash devcloud/integration.sh --strict $(RELEASES)

demo: devcloud-up build
	@bash examples/demo.sh

# RELEASE=zed (default) is the native bookworm cloud; 2025.1, 2026.1 and
# 2026.2 run from a debootstrap chroot in a network namespace of their own
# (devcloud/release.sh).
RELEASE ?= zed

devcloud-up:
	@if [ "$(RELEASE)" = zed ]; then bash devcloud/up.sh; else bash devcloud/release.sh $(RELEASE) up; fi

devcloud-down:
	@if [ "$(RELEASE)" = zed ]; then bash devcloud/down.sh; else bash devcloud/release.sh $(RELEASE) down; fi

devcloud-wipe:
	@if [ "$(RELEASE)" = zed ]; then bash devcloud/down.sh --wipe; else bash devcloud/release.sh $(RELEASE) wipe; fi

## devcloud-down-all: every local cloud stopped (zed and each of RELEASES),
## their data kept.
devcloud-down-all:
	@bash devcloud/down.sh
	@for r in $(filter-out zed,$(RELEASES)); do bash devcloud/release.sh $$r down; done

devcloud-status:
	@if [ "$(RELEASE)" = zed ]; then bash devcloud/status.sh; else bash devcloud/release.sh $(RELEASE) status; fi

clean:
	rm -rf bin
