#!/usr/bin/env bash
# Refuses to package a binary that loads the Swift runtime as shared libraries (a debug build, or a release
# build without --static-swift-stdlib): no distribution ships those libraries, so it would not start on the
# machines a release is for. dpkg-shlibdeps would not catch it: it skips libraries without a version in their
# name. HUM_ALLOW_DYNAMIC_SWIFT=1 lets the tests package the debug binary they have.
set -euo pipefail
bin="$1"
swift_libs=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(lib\(swift\|Foundation\|dispatch\|BlocksRuntime\)[^]]*\)\]/\1/p')
if [ -n "$swift_libs" ] && [ "${HUM_ALLOW_DYNAMIC_SWIFT:-}" != 1 ]; then
    echo "$(basename "$0"): $bin loads the Swift runtime from the toolchain ($(echo $swift_libs | tr ' ' ',')):" \
        "build it with 'make release' (--static-swift-stdlib)" >&2
    exit 1
fi
