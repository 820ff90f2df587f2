#!/usr/bin/env bash
# Build a multi-arch (linux/amd64 + linux/arm64) OCI image FROM scratch holding only the static
# binary, as an OCI image layout and an `oci-archive` tarball — with tar, gzip and sha256sum, no
# Docker. Run cross/build.sh first.
#
#   cross/oci-image.sh [VERSION]     -> out/edgesched-oci/ (layout) and out/edgesched-VERSION.oci.tar
#
# Push:    skopeo copy --all oci-archive:out/edgesched-0.1.0.oci.tar:0.1.0 docker://registry.example/edgesched:0.1.0
# Air-gap: ctr -n k8s.io images import --all-platforms out/edgesched-0.1.0.oci.tar
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)}"
layout=out/edgesched-oci
rm -rf "$layout" out/rootfs
mkdir -p "$layout/blobs/sha256"
created="1970-01-01T00:00:00Z"

blob() { # file -> prints "digest size" after storing it
  local d s
  d=$(sha256sum "$1" | cut -d' ' -f1); s=$(stat -c %s "$1")
  cp "$1" "$layout/blobs/sha256/$d"
  echo "$d $s"
}

manifests=""
for arch in amd64 arm64; do
  bin="out/edgesched-linux-$arch"
  [ -x "$bin" ] || { echo "missing $bin: run cross/build.sh first" >&2; exit 1; }
  root="out/rootfs/$arch"
  mkdir -p "$root"
  install -m 0755 "$bin" "$root/edgesched"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$root" -cf "out/layer-$arch.tar" edgesched
  diff_id=$(sha256sum "out/layer-$arch.tar" | cut -d' ' -f1)
  gzip -n -9 -c "out/layer-$arch.tar" > "out/layer-$arch.tar.gz"
  read -r layer_digest layer_size < <(blob "out/layer-$arch.tar.gz")

  cat > "out/config-$arch.json" <<JSON
{"architecture":"$arch","os":"linux","created":"$created","config":{"User":"65532:65532","Entrypoint":["/edgesched"],"Labels":{"org.opencontainers.image.title":"edgesched","org.opencontainers.image.version":"$version"}},"rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},"history":[{"created":"$created","created_by":"cross/oci-image.sh: COPY edgesched /edgesched"}]}
JSON
  read -r config_digest config_size < <(blob "out/config-$arch.json")

  cat > "out/manifest-$arch.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config_digest","size":$config_size},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:$layer_digest","size":$layer_size}]}
JSON
  read -r m_digest m_size < <(blob "out/manifest-$arch.json")
  entry="{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"sha256:$m_digest\",\"size\":$m_size,\"platform\":{\"architecture\":\"$arch\",\"os\":\"linux\"}}"
  manifests="${manifests:+$manifests,}$entry"
done

# The multi-arch image is a nested index; the layout's index.json names it by tag (ref.name), as
# skopeo and containerd expect for `oci-archive:FILE:TAG`.
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[%s]}' "$manifests" > out/image-index.json
read -r i_digest i_size < <(blob out/image-index.json)
rm -f out/image-index.json
printf '{"imageLayoutVersion":"1.0.0"}' > "$layout/oci-layout"
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.index.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"%s"}}]}' "$i_digest" "$i_size" "$version" > "$layout/index.json"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$layout" -cf "out/edgesched-$version.oci.tar" .
rm -rf out/rootfs out/layer-*.tar out/layer-*.tar.gz out/config-*.json out/manifest-*.json
echo "out/edgesched-$version.oci.tar ($(stat -c %s "out/edgesched-$version.oci.tar") bytes), layout in $layout"
