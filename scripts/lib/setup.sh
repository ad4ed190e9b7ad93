# Shared by scripts/signup, scripts/test and scripts/bench: installs what the build needs.
# Sourced, not run.

# Installs the Debian packages named, if any is missing (apt-get update once a run, before the
# first install; exported, so the scripts a script runs do not update again).
ensure_debian_packages() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "Installing Debian packages: ${missing[*]}" >&2
    if [ -z "${SIGNUP_APT_UPDATED:-}" ]; then
        $sudo apt-get update -qq >&2
        export SIGNUP_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
}

# The Debian packages the build links against.
BUILD_PACKAGES=(libedit-dev libargon2-dev libzxcvbn-dev libutf8proc-dev libidn2-dev libsqlite3-dev libpq-dev libsodium-dev pkg-config gettext po4a)  # gettext: msgfmt; po4a: the translated man pages

# Where `swift` is: on PATH, or the toolchain's usual home on these machines.
ensure_swift() {
    if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null 2>&1 || { echo "error: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }
}

# The flags of the one release build of signup. scripts/signup runs it, scripts/install and
# scripts/package install it, scripts/bench measures it: all through build_release, so they
# are the same binary. Swift's runtime and Foundation are linked statically: exec to the
# first prompt is about twice as fast as with the shared runtime (BENCHMARKS.md), and the
# binary then needs no Swift toolchain at run time (only Debian's C libraries). Without
# SwiftPM's default RUNPATH of $ORIGIN: the release binary needs no library of its own, and
# with it the loader (and libpq's dlopen) first tried every library in the binary's folder,
# where anyone who can write that folder (a shared --prefix) could plant one. Linked by lld with
# packed relative relocations (DT_RELR, glibc 2.36 and later): the position-independent binary
# holds about 40,000 relocations, 957 KB as .rela.dyn and 8 KB packed, so it is 1 MB smaller.
# GCC's C++ runtime, which Swift's runtime uses, is linked statically too (scripts/lib/link):
# 1.5 MiB less resident at the first prompt and 2 million fewer instructions before it, the
# loader's symbol lookups for libstdc++.so.6 (BENCHMARKS.md).
# Each function in a section of its own (Swift and C), so that lld can place the functions that
# run before the first prompt together, in the order scripts/layout wrote to
# scripts/lib/layout/first-prompt.order: the kernel maps code in whole page-cache folios, and
# scattered start-up code made half the binary's code resident (BENCHMARKS.md). A name the
# linker does not find (code renamed since the file was written) is skipped without a warning;
# scripts/test checks that the file still names the binary's functions.
# Concrete generic types through their metadata accessors, not demangled from their names
# (-disable-concrete-type-metadata-mangled-name-accessors): the runtime then checks no
# conformance of a type's generic requirements when it first makes it, and each first check
# scanned every conformance record of the program (String: Hashable, at the first String-keyed
# dictionary or set): 0.45 million fewer instructions to the first prompt and 0.4 MiB less
# resident, for about 40 KB more code. No symbol exported (--no-export-dynamic, which overrides
# the -export-dynamic that swiftc's static-stdlib-args.lnk adds): nothing loads this program as
# a library or looks its symbols up, yet every public declaration of the libraries it links
# (2,857 names) sat in the dynamic symbol table that the loader searches for each of libc's
# symbols: 254 KB less binary and 0.25 MiB less resident at the first prompt (BENCHMARKS.md).
layout_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/layout" && pwd)"
RELEASE_FLAGS=(-c release --static-swift-stdlib --disable-local-rpath
               -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
               -Xlinker "-L$(cd "$(dirname "${BASH_SOURCE[0]}")/link" && pwd)"
               -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
               -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
               -Xlinker "--symbol-ordering-file=$layout_dir/first-prompt.order" -Xlinker --no-warn-symbol-ordering
               -Xlinker --no-export-dynamic)

# install_copy BINARY FOLDER: copies BINARY to FOLDER/bin/ and the catalogs beside it (its
# ../share/locale) to FOLDER/share/, the way the package installs them. Benchmarks measure such a
# copy: the page cache holds a file written in one go in large folios, and the linker's own file
# not, so the same bytes start measurably slower from the build folder (BENCHMARKS.md).
install_copy() {
    install -D -m 0755 "$1" "$2/bin/${1##*/}"
    if [ -d "${1%/*}/../share/locale" ]; then mkdir -p "$2/share" && cp -R "${1%/*}/../share/locale" "$2/share/"; fi
}

# Builds the release signup (build output on standard error) and prints its path.
# PRODUCT=signup-bench builds the benchmark helper with the same flags instead.
build_release() {
    local root="$1" product="${PRODUCT:-signup}"
    swift build "${RELEASE_FLAGS[@]}" --package-path "$root" --product "$product" >&2
    local bin_path; bin_path="$(swift build "${RELEASE_FLAGS[@]}" --package-path "$root" --show-bin-path)"
    # The catalogs where the binary looks for them: ../share/locale from its own file.
    "$root/scripts/po" compile "$bin_path/../share/locale" >&2
    echo "$bin_path/$product"
}

# The administrators' documents that scripts/install and scripts/package install beside the
# man pages, which cite them there (scripts/docs): docs/*.md, one path a line. docs/README.md
# is left out: it indexes the repository's docs folder (the package's README.md is the project's).
admin_docs() {
    local doc
    for doc in "$1"/docs/*.md; do [ "${doc##*/}" = README.md ] || echo "$doc"; done
}
