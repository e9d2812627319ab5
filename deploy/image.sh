#!/usr/bin/env bash
# `./dev image`: build the container image and smoke-test it, then check the deployment files.
#
# With a Docker daemon, `docker build`; without one (this project's machines and CI), buildah
# builds the unchanged Dockerfile as root over a stand-in for python:3.11-slim made once from
# Debian packages (debootstrap minbase bookworm + python3.11, venv, pip, CA certificates, tzdata;
# `python`/`pip` linked into /usr/local/bin; no EXTERNALLY-MANAGED marker, as in the official
# image). The smoke test (tests/system/image_smoke.py) runs inside the image with buildah.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
TAG=localhost/feedwatch:test
BASE=docker.io/library/python:3.11-slim
BUILDAH=(buildah --storage-driver vfs)
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot

for tool in buildah debootstrap docker-compose unshare; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "error: ./dev image needs $tool (apt-get install buildah debootstrap docker-compose)" >&2
    exit 1
  }
done

make_base() {
  local root
  root=$(mktemp -d)
  echo "== stand-in base image $BASE (debootstrap, once)"
  debootstrap --variant=minbase \
    --include=python3.11,python3-venv,python3-pip,ca-certificates,tzdata \
    bookworm "$root/rootfs" http://deb.debian.org/debian >"$root/debootstrap.log" 2>&1 ||
    { tail -20 "$root/debootstrap.log" >&2; exit 1; }
  ln -sf /usr/bin/python3.11 "$root/rootfs/usr/local/bin/python"
  ln -sf /usr/bin/pip3 "$root/rootfs/usr/local/bin/pip"
  rm -f "$root/rootfs/usr/lib/python3.11/EXTERNALLY-MANAGED"
  local ctr mnt
  ctr=$("${BUILDAH[@]}" from scratch)
  mnt=$("${BUILDAH[@]}" mount "$ctr")
  cp -a "$root/rootfs/." "$mnt/"
  "${BUILDAH[@]}" umount "$ctr" >/dev/null
  "${BUILDAH[@]}" config --env PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env LANG=C.UTF-8 --cmd python3 "$ctr"
  "${BUILDAH[@]}" commit -q --format docker "$ctr" "$BASE" >/dev/null
  "${BUILDAH[@]}" rm "$ctr" >/dev/null
  rm -rf "$root"
}

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  echo "== docker build"
  docker build -t "$TAG" .
  "${BUILDAH[@]}" pull -q "docker-daemon:$TAG" >/dev/null
  "${BUILDAH[@]}" pull -q "docker-daemon:$BASE" >/dev/null
else
  "${BUILDAH[@]}" inspect --type image "$BASE" >/dev/null 2>&1 || make_base
  echo "== buildah build (no Docker daemon)"
  "${BUILDAH[@]}" bud --isolation chroot --network host --format docker --layers --pull=never \
    -v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro \
    -q -t "$TAG" . >/dev/null
fi
built=$(date +%s)
echo "   built in $((built - started)) s"

echo "== smoke test inside the image"
.venv/bin/python -m tests.system.image_smoke "$TAG" "$BASE"

echo "== docker-compose.yml (docker-compose config)"
check=$(mktemp -d)
cp docker-compose.yml "$check/" && cp .env.example "$check/.env"
(cd "$check" && docker-compose config -q)
rm -rf "$check"

echo "== deploy/kubernetes (kubernetes-validate --strict)"
.venv/bin/kubernetes-validate --strict --quiet deploy/kubernetes/*.yaml

echo "image: built, smoke-tested and deployment files checked in $(($(date +%s) - started)) s"
