# make sam-local: the built package in a Lambda container under SAM CLI's own emulation (sam local start-api and
# sam local invoke), driven by scripts/sam_local.py against DynamoDB Local and moto on the host
# (docs/deploy.md, "Running the function locally with SAM"). Docker first (started, or installed, on Debian as
# root), then the image, then BUSINESS built for this machine's architecture into a directory of its own (the
# deployable build in .aws-sam/build, arm64, is left alone); ARCH=arm64 on an x86_64 host (QEMU) does not pass
# yet (docs/deploy.md).
# Without Docker it says why and skips (exit 0).
.PHONY: sam-local

SAM_LOCAL_ARCH = $(or $(ARCH),$(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x86_64))

sam-local: venv $(SAM_VENV)/.installed services-install ## build BUSINESS for this machine (or ARCH=x86_64|arm64) and drive it under sam local start-api and invoke, in Docker
	$(PY) scripts/sam_local.py --business $(BUSINESS) --arch $(SAM_LOCAL_ARCH) \
	  --build-dir .aws-sam/local-$(SAM_LOCAL_ARCH)/build || { status=$$?; [ $$status -eq 3 ] || exit $$status; }

# CI runs make test: the package is driven under sam local there too.
test: sam-local
