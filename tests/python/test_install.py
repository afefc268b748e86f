# SPDX-License-Identifier: Apache-2.0
"""Install and package, as a user would from a clean copy of the source:
an unprivileged user (nobody, when the tests run as root) configures,
builds and installs into a prefix of their own; the install writes nothing
outside the prefix; the module works with the OPENSSL_MODULES that cmake
prints and with the installed confs; the prefix may be given at install
time; a relative KSUM_MODULES_DIR is under the prefix; OpenSSL's own prefix
(through DESTDIR) puts the module in OpenSSL's directory; a program links
the provider in from the installed libksumprov.a; the confs keep what the
system's openssl.cnf sets; cpack -G DEB makes the three packages
(ksum, openssl-provider-ksum, libksumprov-dev), which lintian accepts and
which, as root, are installed, used and purged."""
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

import keccak_ref as ref
import readme
from conftest import unprivileged

pytestmark = [
    pytest.mark.skipif(os.environ.get("KSUM_SANITIZED") == "1",
                       reason="the installed module is loaded into the uninstrumented openssl; "
                              "the release build runs these tests"),
    pytest.mark.skipif(shutil.which("cmake") is None, reason="no cmake"),
]

ROOT = readme.ROOT
DATA = ref.ptn(20000)


class Tree:
    """A temporary directory owned by the unprivileged user, holding a copy
    of the source (src/), the user's home (home/) and build trees."""

    def __init__(self):
        self.sudo, self.user = unprivileged()
        self.base = tempfile.mkdtemp(prefix="ksum-install-")
        os.chmod(self.base, 0o755)
        parent = os.path.dirname(self.base)
        while self.user and parent != "/":
            if os.stat(parent).st_mode & 0o001 == 0:
                shutil.rmtree(self.base)
                pytest.skip(f"{parent} cannot be entered by others")
            parent = os.path.dirname(parent)
        self.src = os.path.join(self.base, "src")
        ignore = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache")
        for name in os.listdir(ROOT):
            if name.startswith(("build", ".git", ".pytest")) or name == "tests":
                continue   # no tests: configured with KSUM_TESTS=OFF
            path = os.path.join(ROOT, name)
            if os.path.isdir(path):
                shutil.copytree(path, os.path.join(self.src, name), ignore=ignore)
            else:
                os.makedirs(self.src, exist_ok=True)
                shutil.copy(path, self.src)
        for d in ("home", "tmp"):
            os.mkdir(os.path.join(self.base, d))
        if self.user:
            for p in (self.base, os.path.join(self.base, "home"), os.path.join(self.base, "tmp")):
                os.chown(p, self.user.pw_uid, self.user.pw_gid)
        self.home = os.path.join(self.base, "home")
        self.data = os.path.join(self.base, "data")
        with open(self.data, "wb") as f:
            f.write(DATA)
        os.chmod(self.data, 0o644)

    def path(self, *parts):
        return os.path.join(self.base, *parts)

    def env(self, **extra):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home,
               "TMPDIR": self.path("tmp"), "LANG": "C.UTF-8"}
        env.update(extra)
        return env

    def run(self, cmd, cwd=None, check=True, shell=False, **extra):
        """Runs cmd (a list, or a bash script when shell) as the user."""
        if shell:
            cmd = ["bash", "-e", "-c", cmd]
        p = subprocess.run(self.sudo + cmd, cwd=cwd or self.base, env=self.env(**extra),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        if check:
            assert p.returncode == 0, (cmd, p.stdout.decode()[-3000:], p.stderr.decode()[-3000:])
        return p

    def configure(self, build, *args):
        return self.run(["cmake", "-S", self.src, "-B", self.path(build),
                         "-DKSUM_TESTS=OFF"] + list(args)).stdout.decode()

    def build(self, build):
        self.run(["cmake", "--build", self.path(build), "-j2", "--target", "ksum", "ksumprov",
                  "ksumprov_static", "ksum_docs"])

    def cache(self, build, name):
        text = open(self.path(build, "CMakeCache.txt")).read()
        return re.search(rf"^{name}:\w+=(.*)$", text, re.M).group(1)

    def snapshot(self, skip):
        """Every file under base but `skip`, with its size and mtime, and
        every directory (whose mtime changes with the entries made in it)."""
        seen = {}
        for dirpath, dirnames, names in os.walk(self.base):
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) != skip]
            for n in names + dirnames:
                p = os.path.join(dirpath, n)
                st = os.lstat(p)
                seen[os.path.relpath(p, self.base)] = \
                    "dir" if n in dirnames else (st.st_size, st.st_mtime_ns)
        return seen

    def install(self, build, prefix, args=(), script=None, **extra):
        """Installs as the user (cmake --install with args, or the bash
        script, run in base); asserts that nothing changed outside the
        prefix but CMake's manifest in the build tree, and that the manifest
        lists exactly the files under the prefix.  Returns (stdout, files
        relative to the prefix)."""
        before = self.snapshot(prefix)
        if script is None:
            out = self.run(["cmake", "--install", self.path(build)] + list(args), **extra)
        else:
            out = self.run(script, shell=True, **extra)
        after = self.snapshot(prefix)
        changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
        name = "install_manifest.txt"
        if "--component" in args:
            name = f"install_manifest_{args[list(args).index('--component') + 1]}.txt"
        assert changed == {os.path.join(build, name)}
        manifest = open(self.path(build, name)).read().splitlines()
        assert all(m.startswith(prefix + "/") for m in manifest), manifest
        files = set()
        for dirpath, _, names in os.walk(prefix):
            files |= {os.path.join(dirpath, n) for n in names}
        assert set(manifest) == files
        return out.stdout.decode(), {os.path.relpath(f, prefix) for f in files}

    def write(self, path, text):
        """A file, or with text None a directory, owned by the user."""
        if text is None:
            os.mkdir(path)
        else:
            with open(path, "w") as f:
                f.write(text)
        if self.user:
            os.chown(path, self.user.pw_uid, self.user.pw_gid)

    def close(self):
        shutil.rmtree(self.base)


@pytest.fixture(scope="module")
def tree():
    t = Tree()
    try:
        t.configure_out = t.configure("build", "-DCMAKE_INSTALL_PREFIX=" + t.path("home", "opt"))
        t.build("build")
        t.libdir = t.cache("build", "CMAKE_INSTALL_LIBDIR")
        yield t
    finally:
        t.close()


def shipped_docs():
    """The documents installed beside the man page, relative to the source
    tree and to share/doc/ksum alike: README.md, SECURITY.md, docs/*.md."""
    docs = sorted(f for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    return ["README.md", "SECURITY.md"] + ["docs/" + f for f in docs]


def expected_files(libdir):
    return {"bin/ksum", "share/man/man1/ksum.1.gz", "include/ksumprov.h",
            "share/doc/ksum/LICENSE", f"{libdir}/ossl-modules/ksumprov.so",
            f"{libdir}/pkgconfig/ksumprov.pc", f"{libdir}/libksumprov.a",
            "share/ksum/ksumprov.cnf", "share/ksum/ksumprov-preferred.cnf"} | \
        {"share/doc/ksum/" + d for d in shipped_docs()}


def printed_modules_dir(text):
    found = re.findall(r"OPENSSL_MODULES=(\S+)", text)
    assert len(found) == 1, text
    return found[0]


def kt128_hex(data=DATA):
    return ref.kt128(data, b"", 16).hex()


def dgst_value(out):
    return out.decode().strip().split("= ", 1)[1]


def check_confs(t, prefix, module):
    """The installed confs name the module and work without OPENSSL_MODULES."""
    for conf in ("ksumprov.cnf", "ksumprov-preferred.cnf"):
        path = os.path.join(prefix, "share", "ksum", conf)
        assert f"\nmodule = {module}\n" in open(path).read()
        out = t.run(["openssl", "dgst", "-KT128", t.data], OPENSSL_CONF=path).stdout
        assert dgst_value(out) == kt128_hex()
    # the preferred conf takes KMAC from ksumprov (OpenSSL's own refuses an empty key)
    out = t.run(["openssl", "mac", "-macopt", "hexkey:", "-in", t.data, "KMAC128"],
                OPENSSL_CONF=os.path.join(prefix, "share", "ksum", "ksumprov-preferred.cnf"))
    assert out.stdout.decode().strip().lower() == ref.kmac(128, b"", DATA, 32).hex()


def test_configure_prints_where_the_module_goes(tree):
    moddir = tree.path("home", "opt", tree.libdir, "ossl-modules")
    assert f"-- ksumprov.so will be installed in {moddir}, not OpenSSL's module directory" \
        in tree.configure_out
    assert printed_modules_dir(tree.configure_out) == moddir


def test_install_to_the_configured_prefix(tree):
    prefix = tree.path("home", "opt")
    out, files = tree.install("build", prefix)
    assert files == expected_files(tree.libdir)
    moddir = printed_modules_dir(tree.configure_out)
    assert printed_modules_dir(out) == moddir
    # the module by name, with the OPENSSL_MODULES configure printed
    out = tree.run(["openssl", "dgst", "-provider", "ksumprov", "-provider", "default",
                    "-propquery", "provider=ksumprov", "-KT128", tree.data],
                   OPENSSL_MODULES=moddir).stdout
    assert dgst_value(out) == kt128_hex()
    out = tree.run(["openssl", "list", "-providers", "-provider", "ksumprov"],
                   OPENSSL_MODULES=moddir).stdout.decode()
    assert "ksumprov: Keccak family" in out and "status: active" in out
    check_confs(tree, prefix, os.path.join(moddir, "ksumprov.so"))
    out = tree.run([os.path.join(prefix, "bin", "ksum"), "--k12", tree.data]).stdout
    assert out.decode() == f"{kt128_hex()}  {tree.data}\n"


def test_install_to_a_prefix_given_at_install_time(tree):
    """The README's commands as written, with HOME the user's home: the
    prefix differs from the configured one."""
    prefix = os.path.join(tree.home, ".local")
    install, use = readme.blocks("Install", "sh")[:2]
    assert install.strip() == 'cmake --install build --prefix "$HOME/.local"'
    out, files = tree.install("build", prefix, script=install)
    assert files == expected_files(tree.libdir)
    moddir = os.path.join(prefix, tree.libdir, "ossl-modules")
    assert printed_modules_dir(out) == moddir
    check_confs(tree, prefix, os.path.join(moddir, "ksumprov.so"))
    pc = open(os.path.join(prefix, tree.libdir, "pkgconfig", "ksumprov.pc")).read()
    assert f"prefix={prefix}\n" in pc
    lines = tree.run(use, shell=True, cwd=tree.src).stdout.decode().splitlines()
    readme_md = open(os.path.join(tree.src, "README.md"), "rb").read()
    assert lines == [f"KANGAROOTWELVE(README.md)= {kt128_hex(readme_md)}"] * 2


def c_example_output():
    kt = ref.kt256(b"abc", b"my app", 100).hex()
    sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    return f"KT256: {kt}\nSHA256: {sha}\nSHA256 from default, random bytes: ok\n"


@pytest.mark.skipif(not (shutil.which("pkg-config") and shutil.which("cc")),
                    reason="no pkg-config or C compiler")
def test_readme_c_example_builds_against_the_installed_pkg_config(tree):
    prefix = tree.path("home", "pc")
    tree.install("build", prefix, args=["--prefix", prefix])
    pcdir = os.path.join(prefix, tree.libdir, "pkgconfig")
    got = tree.run(["pkg-config", "--cflags", "ksumprov"], PKG_CONFIG_PATH=pcdir).stdout
    assert got.decode().split() == [f"-I{prefix}/include"]
    got = tree.run(["pkg-config", "--variable=modulesdir", "ksumprov"], PKG_CONFIG_PATH=pcdir)
    assert got.stdout.decode().strip() == os.path.join(prefix, tree.libdir, "ossl-modules")
    work = tree.path("home", "app")
    tree.write(work, None)
    tree.write(os.path.join(work, "app.c"), readme.block("From C", "c"))
    out = tree.run(readme.block("From C", "sh"), shell=True, cwd=work, PKG_CONFIG_PATH=pcdir)
    assert out.stdout.decode() == c_example_output()


def builtin_example(t, prefix, pcdir, work):
    """Builds tests/c/builtin_example.c, which links the provider in, with
    the flags pkg-config gives from the .pc in pcdir, and runs it with no
    module to be found and no conf; returns its output."""
    t.write(work, None)
    src = os.path.join(work, "builtin_example.c")
    t.write(src, open(os.path.join(ROOT, "tests", "c", "builtin_example.c")).read())
    libs = t.run(["pkg-config", "--libs", "ksumprov"], PKG_CONFIG_PATH=pcdir).stdout.decode()
    assert "-lksumprov" in libs.split() and "-lcrypto" in libs.split(), libs
    t.run('cc builtin_example.c $(pkg-config --cflags --libs ksumprov) -o builtin_example',
          shell=True, cwd=work, PKG_CONFIG_PATH=pcdir)
    empty = os.path.join(work, "empty.cnf")
    t.write(empty, "")
    return t.run([os.path.join(work, "builtin_example")], OPENSSL_CONF=empty,
                 OPENSSL_MODULES=os.path.join(work, "no-modules-here")).stdout.decode()


@pytest.mark.skipif(not (shutil.which("pkg-config") and shutil.which("cc")),
                    reason="no pkg-config or C compiler")
def test_provider_links_in_from_the_installed_static_library(tree):
    """docs/provider.md's OSSL_PROVIDER_add_builtin(libctx, "ksumprov",
    ksumprov_init): the installed header declares it, the installed
    libksumprov.a defines it, the installed .pc names the library."""
    prefix = tree.path("home", "builtin")
    tree.install("build", prefix, args=["--prefix", prefix])
    pcdir = os.path.join(prefix, tree.libdir, "pkgconfig")
    assert "OSSL_PROVIDER_add_builtin(libctx, \"ksumprov\", ksumprov_init)" in \
        open(os.path.join(ROOT, "docs", "provider.md")).read()
    out = builtin_example(tree, prefix, pcdir, tree.path("home", "builtin-app"))
    assert out == f"ksumprov:{ref.kt128(b'abc', b'', 16).hex()}\n"
    archive = os.path.join(prefix, tree.libdir, "libksumprov.a")
    # one global definition: the entry point; the internal names are local
    nm = tree.run(["nm", "-g", "--defined-only", archive]).stdout.decode()
    defined = [line.split()[-1] for line in nm.splitlines() if len(line.split()) == 3]
    assert defined == ["ksumprov_init"], defined
    # position-independent: it links into a shared library as well
    work = tree.path("home", "builtin-app")
    tree.write(os.path.join(work, "shared.c"),
               "#include <ksumprov.h>\nvoid *entry(void) { return (void *)ksumprov_init; }\n")
    tree.run('cc -shared -fPIC shared.c -o libshared.so -Wl,-z,defs '
             '$(pkg-config --cflags --libs ksumprov)', shell=True, cwd=work,
             PKG_CONFIG_PATH=pcdir)


def system_openssl_dir():
    out = subprocess.run(["openssl", "version", "-d"], stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    return re.search(r'OPENSSLDIR: "(.*)"', out).group(1)


def test_confs_include_the_system_configuration(tree):
    """By default the confs include libcrypto's OPENSSLDIR/openssl.cnf and
    add ksumprov to the section it initializes from."""
    conf = os.path.join(system_openssl_dir(), "openssl.cnf")
    assert tree.cache("build", "KSUM_SYSTEM_OPENSSL_CONF") == conf
    text = open(tree.path("build", "ksumprov.cnf")).read()
    assert f"\n.include {conf}\n" in text
    if os.path.exists(conf):
        init = re.findall(r"^\s*openssl_conf\s*=\s*(\S+)", open(conf).read(), re.M)
        assert f"\n[{init[-1] if init else 'openssl_init'}]\nproviders.ksumprov = " in text


SYSTEM_CONF = """# a system configuration with settings of its own
openssl_conf = sys_init

[sys_init]
providers = sys_providers
ssl_conf = sys_ssl

[sys_providers]
default = sys_default
{legacy}

[sys_default]
activate = 1

[sys_legacy]
activate = 1

[sys_ssl]
system_default = sys_tls

[sys_tls]
Ciphersuites = TLS_CHACHA20_POLY1305_SHA256
"""


def test_confs_keep_the_system_configuration(tree):
    """Built against a system openssl.cnf of known content (its own name for
    the initialization section, the legacy provider activated, one TLS 1.3
    cipher suite): under either installed conf, openssl still has the
    system's providers and TLS setting, and ksumprov too."""
    moddir = subprocess.run(["openssl", "version", "-m"], stdout=subprocess.PIPE,
                            check=True).stdout.decode()
    moddir = re.search(r'MODULESDIR: "(.*)"', moddir).group(1)
    legacy = os.path.exists(os.path.join(moddir, "legacy.so"))
    system = tree.path("home", "system-openssl.cnf")
    tree.write(system, SYSTEM_CONF.format(legacy="legacy = sys_legacy" if legacy else ""))
    prefix = tree.path("home", "sys")
    out = tree.configure("build-sys", "-DCMAKE_INSTALL_PREFIX=" + prefix,
                         "-DKSUM_SYSTEM_OPENSSL_CONF=" + system)
    assert f"-- The confs include {system} and add ksumprov to its [sys_init]" in out
    tree.run(["cmake", "--build", tree.path("build-sys"), "-j2", "--target", "ksumprov",
              "ksum_docs"])
    _, files = tree.install("build-sys", prefix, args=["--component", "provider"])
    assert files == {f"{tree.libdir}/ossl-modules/ksumprov.so", "share/ksum/ksumprov.cnf",
                     "share/ksum/ksumprov-preferred.cnf",   # what the package has
                     "share/doc/openssl-provider-ksum/copyright",
                     "share/doc/openssl-provider-ksum/changelog.gz"}
    suites = tree.run(["openssl", "ciphers", "-s", "-tls1_3"],
                      OPENSSL_CONF=system).stdout.decode().strip()
    assert suites == "TLS_CHACHA20_POLY1305_SHA256"
    for name in ("ksumprov.cnf", "ksumprov-preferred.cnf"):
        conf = os.path.join(prefix, "share", "ksum", name)
        listing = tree.run(["openssl", "list", "-providers"], OPENSSL_CONF=conf).stdout.decode()
        expected = {"default", "ksumprov"} | ({"legacy"} if legacy else set())
        assert set(re.findall(r"^  (\S+)$", listing, re.M)) == expected, listing
        assert listing.count("status: active") == len(expected), listing
        got = tree.run(["openssl", "ciphers", "-s", "-tls1_3"], OPENSSL_CONF=conf)
        assert got.stdout.decode().strip() == suites
        out = tree.run(["openssl", "dgst", "-KT128", tree.data], OPENSSL_CONF=conf).stdout
        assert dgst_value(out) == kt128_hex()
        if legacy:   # MD4 is the legacy provider's
            out = tree.run(["openssl", "dgst", "-md4", tree.data], OPENSSL_CONF=conf).stdout
            assert len(dgst_value(out)) == 32
    # what the system conf alone gives: no ksumprov
    listing = tree.run(["openssl", "list", "-providers"], OPENSSL_CONF=system).stdout.decode()
    assert "ksumprov" not in listing


def test_relative_modules_dir_is_under_the_prefix(tree):
    # OpenSSL's own prefix: the module goes to OpenSSL's directory, no OPENSSL_MODULES
    ossl = ossl_dirs(tree)
    if ossl:
        out = tree.configure("build-rel", "-DCMAKE_INSTALL_PREFIX=" + ossl["prefix"])
        assert f"-- ksumprov.so will be installed in {ossl['modulesdir']} " \
               "(OpenSSL's module directory)" in out
        assert "OPENSSL_MODULES" not in out
    prefix = tree.path("home", "rel")
    out = tree.configure("build-rel", "-DCMAKE_INSTALL_PREFIX=" + prefix,
                         "-DKSUM_MODULES_DIR=lib/ksum-modules")
    moddir = os.path.join(prefix, "lib", "ksum-modules")
    assert printed_modules_dir(out) == moddir
    tree.build("build-rel")
    out, files = tree.install("build-rel", prefix)
    assert "lib/ksum-modules/ksumprov.so" in files
    check_confs(tree, prefix, os.path.join(moddir, "ksumprov.so"))
    out = tree.run(["openssl", "dgst", "-provider", "ksumprov", "-provider", "default",
                    "-KT128", tree.data], OPENSSL_MODULES=moddir).stdout
    assert dgst_value(out) == kt128_hex()


def ossl_dirs(t):
    """libcrypto's prefix, modulesdir and pkgconfig directory, or None."""
    if not shutil.which("pkg-config"):
        return None
    got = {}
    for var in ("prefix", "modulesdir", "pcfiledir"):
        p = subprocess.run(["pkg-config", f"--variable={var}", "libcrypto"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if p.returncode != 0 or not p.stdout.strip():
            return None
        got[var] = p.stdout.decode().strip()
    return got


def test_destdir_install_for_openssls_own_prefix(tree):
    """As a package build does: OpenSSL's prefix under a DESTDIR."""
    ossl = ossl_dirs(tree)
    if not ossl:
        pytest.skip("pkg-config does not know libcrypto")
    dest = tree.path("home", "stage")
    before = tree.snapshot(dest)
    tree.run(["cmake", "--install", tree.path("build"), "--prefix", ossl["prefix"]],
             DESTDIR=dest)
    after = tree.snapshot(dest)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    assert changed == {os.path.join("build", "install_manifest.txt")}
    manifest = open(tree.path("build", "install_manifest.txt")).read().splitlines()
    module = os.path.join(ossl["modulesdir"], "ksumprov.so")
    assert module in manifest
    assert os.path.join(ossl["pcfiledir"], "ksumprov.pc") in manifest
    for m in manifest:
        assert os.path.isfile(dest + m), m
    for conf in ("ksumprov.cnf", "ksumprov-preferred.cnf"):
        text = open(dest + os.path.join(ossl["prefix"], "share", "ksum", conf)).read()
        assert f"\nmodule = {module}\n" in text


# ---- the Debian package ----

def deb_tools():
    missing = [t for t in ("cpack", "dpkg-deb", "dpkg") if not shutil.which(t)]
    if missing:
        pytest.skip("no " + ", ".join(missing))


def project_version():
    text = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    return re.search(r"project\(ksum VERSION (\S+)", text).group(1)


DEB_PACKAGES = ("ksum", "openssl-provider-ksum", "libksumprov-dev")


def deb_files(deb):
    """{path: mode} of the regular files in a .deb, and its listing."""
    listing = subprocess.run(["dpkg-deb", "-c", deb], stdout=subprocess.PIPE,
                             check=True).stdout.decode().splitlines()
    assert all(line.split()[1] == "root/root" for line in listing)
    return {line.split()[-1][1:]: line.split()[0] for line in listing if line.startswith("-")}


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], stdout=subprocess.PIPE, check=True).stdout
    return re.search(r"Build ID: ([0-9a-f]+)", out.decode()).group(1)


def lintian_tags(t, paths):
    """lintian's output lines on the packages, info tags included."""
    p = t.run(["lintian", "-I", "--no-tag-display-limit"] + list(paths), check=False)
    lines = (p.stdout + p.stderr).decode().splitlines()
    return [line for line in lines if re.match(r"^[EWIXPON]: ", line)]


def dpkg_as_root(*args):
    """dpkg ARGS, waiting for the lock another dpkg or apt holds."""
    for _ in range(60):
        p = subprocess.run(["dpkg"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        if p.returncode == 0 or b"lock" not in p.stdout:
            break
        time.sleep(2)
    assert p.returncode == 0, p.stdout.decode()[-3000:]


def installed(package):
    p = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return b"install ok installed" in p.stdout


def debian_arch():
    return subprocess.run(["dpkg", "--print-architecture"], stdout=subprocess.PIPE,
                          check=True).stdout.decode().strip()


def packages(t):
    """The three .debs of `cpack -G DEB` in the tree's build, made once."""
    if not hasattr(t, "debs"):
        deb_tools()
        version, arch = project_version(), debian_arch()
        t.run(["cpack", "-G", "DEB"], cwd=t.path("build"))
        t.debs = {p: t.path("build", f"{p}_{version}_{arch}.deb") for p in DEB_PACKAGES}
        for deb in t.debs.values():
            assert os.path.isfile(deb), deb
    return t.debs


def test_debian_packages(tree):
    version, arch = project_version(), debian_arch()
    debs = packages(tree)

    ossl = ossl_dirs(tree) or {"modulesdir": "/usr/lib/x86_64-linux-gnu/ossl-modules",
                               "pcfiledir": "/usr/lib/x86_64-linux-gnu/pkgconfig"}
    if arch == "amd64":
        assert ossl["modulesdir"] == "/usr/lib/x86_64-linux-gnu/ossl-modules"
    module = os.path.join(ossl["modulesdir"], "ksumprov.so")
    libdir = os.path.dirname(ossl["pcfiledir"])
    files = {p: deb_files(d) for p, d in debs.items()}
    docs = lambda p: {f"/usr/share/doc/{p}/copyright", f"/usr/share/doc/{p}/changelog.gz"}
    assert set(files["ksum"]) == {"/usr/bin/ksum", "/usr/share/man/man1/ksum.1.gz"} | \
        docs("ksum") | {"/usr/share/doc/ksum/" + d for d in shipped_docs()}
    assert set(files["openssl-provider-ksum"]) == \
        {module, "/usr/share/ksum/ksumprov.cnf", "/usr/share/ksum/ksumprov-preferred.cnf"} | \
        docs("openssl-provider-ksum")
    assert set(files["libksumprov-dev"]) == \
        {"/usr/include/ksumprov.h", os.path.join(ossl["pcfiledir"], "ksumprov.pc"),
         os.path.join(libdir, "libksumprov.a")} | docs("libksumprov-dev")
    assert files["ksum"]["/usr/bin/ksum"] == "-rwxr-xr-x"
    assert files["openssl-provider-ksum"][module] == "-rw-r--r--"

    fields = {}
    for p, deb in debs.items():
        out = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Depends", "Section",
                              "Description"],
                             stdout=subprocess.PIPE, check=True).stdout.decode()
        fields[p] = dict(re.findall(r"^(\w+): (.*)$", out, re.M))
        assert fields[p]["Package"] == p
    for p in ("ksum", "openssl-provider-ksum"):
        assert re.search(r"\blibssl3", fields[p]["Depends"]), fields[p]
        assert re.search(r"\blibc6\b", fields[p]["Depends"]), fields[p]
    assert f"openssl-provider-ksum (= {version})" in fields["libksumprov-dev"]["Depends"]
    assert "libssl-dev" in fields["libksumprov-dev"]["Depends"]
    assert [fields[p]["Section"] for p in DEB_PACKAGES] == ["utils", "libs", "libdevel"]
    # each its own synopsis (a CPACK_PACKAGE_DESCRIPTION_SUMMARY gave all three one)
    assert fields["ksum"]["Description"].startswith("Keccak-family checksums of files")
    assert fields["openssl-provider-ksum"]["Description"].endswith("(ksumprov)")
    assert fields["libksumprov-dev"]["Description"].endswith("(development files)")

    root = tree.path("home", "debroot")
    for deb in debs.values():
        tree.run(["dpkg", "-x", deb, root])
    # compressed with gzip -9n (no name, no time stamp): the same bytes each build
    for gz in ("/usr/share/man/man1/ksum.1.gz", "/usr/share/doc/ksum/changelog.gz"):
        with open(root + gz, "rb") as f:
            head = f.read(10)
        assert head[:3] == b"\x1f\x8b\x08" and head[3] & 0x08 == 0 and head[4:8] == b"\0" * 4
    man = subprocess.run(["gzip", "-dc", root + "/usr/share/man/man1/ksum.1.gz"],
                         stdout=subprocess.PIPE, check=True).stdout
    assert man == open(os.path.join(ROOT, "cli", "ksum.1"), "rb").read()
    changelog = subprocess.run(["gzip", "-dc", root + "/usr/share/doc/ksum/changelog.gz"],
                               stdout=subprocess.PIPE, check=True).stdout.decode()
    assert changelog.startswith(f"ksum ({version}) unstable; urgency=medium\n"), changelog
    copyright_text = open(root + "/usr/share/doc/ksum/copyright").read()
    assert copyright_text.startswith(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n")
    assert "License: Apache-2.0\n" in copyright_text
    assert open(root + "/usr/include/ksumprov.h").read() == \
        open(os.path.join(ROOT, "include", "ksumprov.h")).read()
    # the documents --help and the man page name, as in the source
    for d in shipped_docs():
        with open(root + "/usr/share/doc/ksum/" + d, "rb") as got, \
                open(os.path.join(ROOT, d), "rb") as want:
            assert got.read() == want.read(), d

    # stripped, with the debug symbols in the -dbgsym packages under the build id
    ddebs = []
    for p, path in (("ksum", "/usr/bin/ksum"), ("openssl-provider-ksum", module)):
        assert "not stripped" not in subprocess.run(
            ["file", "-b", root + path], stdout=subprocess.PIPE).stdout.decode()
        ddeb = tree.path("build", f"{p}-dbgsym_{version}_{arch}.ddeb")
        bid = build_id(root + path)
        assert f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug" in deb_files(ddeb)
        ddebs.append(ddeb)

    # the unpacked ksum
    out = tree.run([root + "/usr/bin/ksum", "--k12", tree.data]).stdout.decode()
    assert out == f"{kt128_hex()}  {tree.data}\n"
    # the unpacked module, by name
    out = tree.run(["openssl", "dgst", "-provider", "ksumprov", "-provider", "default",
                    "-propquery", "provider=ksumprov", "-KT128", tree.data],
                   OPENSSL_MODULES=root + ossl["modulesdir"]).stdout
    assert dgst_value(out) == kt128_hex()
    # the packaged confs name the Debian path; pointed at the unpacked module they work
    for conf in ("ksumprov.cnf", "ksumprov-preferred.cnf"):
        text = open(root + "/usr/share/ksum/" + conf).read()
        assert f"\nmodule = {module}\n" in text
        moved = tree.path("home", "moved-" + conf)
        tree.write(moved, text.replace(module, root + module))
        out = tree.run(["openssl", "dgst", "-KT128", tree.data], OPENSSL_CONF=moved).stdout
        assert dgst_value(out) == kt128_hex()
    out = tree.run(["openssl", "mac", "-macopt", "hexkey:", "-in", tree.data, "KMAC128"],
                   OPENSSL_CONF=tree.path("home", "moved-ksumprov-preferred.cnf"))
    assert out.stdout.decode().strip().lower() == ref.kmac(128, b"", DATA, 32).hex()
    # the .pc
    pc = open(root + os.path.join(ossl["pcfiledir"], "ksumprov.pc")).read()
    assert "prefix=/usr\n" in pc
    assert f"libdir=${{prefix}}{libdir[len('/usr'):]}\n" in pc
    if shutil.which("pkg-config"):
        got = subprocess.run(["pkg-config", "--variable=modulesdir", "ksumprov"],
                             env=dict(os.environ, PKG_CONFIG_PATH=root + ossl["pcfiledir"]),
                             stdout=subprocess.PIPE)
        assert got.stdout.decode().strip() == ossl["modulesdir"]


    # installed on this system, used as installed, purged: only when asked
    # (.ci/run asks), never because the tests happen to run as root, as in a
    # container or a build chroot
    if os.environ.get("KSUM_TEST_DPKG_INSTALL") != "1":
        print("KSUM_TEST_DPKG_INSTALL=1 not set: the packages are not installed")
        return
    if os.geteuid() != 0:
        print("KSUM_TEST_DPKG_INSTALL=1, but not root: the packages are not installed")
        return
    if any(installed(p) for p in DEB_PACKAGES):
        pytest.skip("a ksum package is installed already: left as it is")
    dpkg_as_root("-i", *debs.values())
    try:
        out = tree.run(["/usr/bin/ksum", "--k12", tree.data]).stdout.decode()
        assert out == f"{kt128_hex()}  {tree.data}\n"
        out = tree.run(["openssl", "dgst", "-provider", "ksumprov", "-provider", "default",
                        "-propquery", "provider=ksumprov", "-KT128", tree.data]).stdout
        assert dgst_value(out) == kt128_hex()
        for conf in ("ksumprov.cnf", "ksumprov-preferred.cnf"):
            out = tree.run(["openssl", "dgst", "-KT128", tree.data],
                           OPENSSL_CONF="/usr/share/ksum/" + conf).stdout
            assert dgst_value(out) == kt128_hex()
        if shutil.which("pkg-config") and shutil.which("cc"):
            out = builtin_example(tree, "/usr", "", tree.path("home", "deb-app"))
            assert out == f"ksumprov:{ref.kt128(b'abc', b'', 16).hex()}\n"
    finally:
        dpkg_as_root("--purge", *reversed(DEB_PACKAGES))
    for p in DEB_PACKAGES:
        assert not installed(p)
    for listing in files.values():
        for path in listing:
            assert not os.path.exists(path), path


def test_lintian_accepts_the_packages(tree):
    """lintian on the three packages and their .ddebs: no error, no warning,
    no hardening tag (made by test_debian_packages, or here)."""
    if not shutil.which("lintian"):
        pytest.skip("lintian is not installed (apt-get install lintian)")
    debs = packages(tree)
    version, arch = project_version(), debian_arch()
    ddebs = [tree.path("build", f"{p}-dbgsym_{version}_{arch}.ddeb")
             for p in ("ksum", "openssl-provider-ksum")]
    tags = lintian_tags(tree, list(debs.values()) + ddebs)
    print("lintian:", "\n".join(tags) or "(nothing)")
    # a build without -g (this one) gives dbgsym packages of symbol tables
    # only, which lintian warns of; docs/packaging.md builds RelWithDebInfo
    debug = tree.cache("build", "CMAKE_BUILD_TYPE") in ("Debug", "RelWithDebInfo")
    bad = [t for t in tags if (t.startswith(("E:", "W:")) or "hardening" in t) and
           (debug or not re.match(r"W: \S+-dbgsym: debug-file-with-no-debug-symbols ", t))]
    assert bad == [], tags


def test_packaging_page_shows_the_commands_tested_here():
    """docs/packaging.md's commands are the ones the package test runs:
    cpack -G DEB, lintian, apt-get install of the three packages."""
    block = readme.block("Debian packages", "sh")
    assert "cpack -G DEB" in block and "lintian -I *.deb" in block
    for package in ("ksum_", "openssl-provider-ksum_", "libksumprov-dev_"):
        assert package in block
