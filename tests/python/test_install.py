# SPDX-License-Identifier: Apache-2.0
"""Install and package, as a user would from a clean copy of the source:
an unprivileged user (nobody, when the tests run as root) configures,
builds and installs into a prefix of their own; the install writes nothing
outside the prefix; the module works with the OPENSSL_MODULES that cmake
prints and with the installed confs; the prefix may be given at install
time; a relative KSUM_MODULES_DIR is under the prefix; OpenSSL's own prefix
(through DESTDIR) puts the module in OpenSSL's directory; cpack -G DEB makes
a package whose unpacked ksum and module work."""
import os
import re
import shutil
import subprocess
import tempfile

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
        self.run(["cmake", "--build", self.path(build), "-j2", "--target", "ksum", "ksumprov"])

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
        assert changed == {os.path.join(build, "install_manifest.txt")}
        manifest = open(self.path(build, "install_manifest.txt")).read().split()
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


def expected_files(libdir):
    return {"bin/ksum", "share/man/man1/ksum.1", "include/ksumprov.h",
            "share/doc/ksum/LICENSE", f"{libdir}/ossl-modules/ksumprov.so",
            f"{libdir}/pkgconfig/ksumprov.pc",
            "share/ksum/ksumprov.cnf", "share/ksum/ksumprov-preferred.cnf"}


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
    manifest = open(tree.path("build", "install_manifest.txt")).read().split()
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


def test_debian_package(tree):
    deb_tools()
    arch = subprocess.run(["dpkg", "--print-architecture"], stdout=subprocess.PIPE,
                          check=True).stdout.decode().strip()
    tree.run(["cpack", "-G", "DEB"], cwd=tree.path("build"))
    deb = tree.path("build", f"ksum_{project_version()}_{arch}.deb")
    assert os.path.isfile(deb)

    fields = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Depends"],
                            stdout=subprocess.PIPE, check=True).stdout.decode()
    assert "Package: ksum\n" in fields
    depends = re.search(r"^Depends: (.*)$", fields, re.M).group(1)
    assert re.search(r"\blibssl3", depends) and re.search(r"\blibc6\b", depends), depends

    ossl = ossl_dirs(tree) or {"modulesdir": "/usr/lib/x86_64-linux-gnu/ossl-modules",
                               "pcfiledir": "/usr/lib/x86_64-linux-gnu/pkgconfig"}
    if arch == "amd64":
        assert ossl["modulesdir"] == "/usr/lib/x86_64-linux-gnu/ossl-modules"
    listing = subprocess.run(["dpkg-deb", "-c", deb], stdout=subprocess.PIPE,
                             check=True).stdout.decode().splitlines()
    files = {line.split()[-1][1:]: line.split()[0] for line in listing if line.startswith("-")}
    module = os.path.join(ossl["modulesdir"], "ksumprov.so")
    assert set(files) == {"/usr/bin/ksum", "/usr/share/man/man1/ksum.1", module,
                          "/usr/include/ksumprov.h",
                          os.path.join(ossl["pcfiledir"], "ksumprov.pc"),
                          "/usr/share/ksum/ksumprov.cnf", "/usr/share/ksum/ksumprov-preferred.cnf",
                          "/usr/share/doc/ksum/LICENSE"}
    assert files["/usr/bin/ksum"] == "-rwxr-xr-x"
    assert all(line.split()[1] == "root/root" for line in listing)

    root = tree.path("home", "debroot")
    tree.run(["dpkg", "-x", deb, root])
    assert open(root + "/usr/share/man/man1/ksum.1").read() == \
        open(os.path.join(ROOT, "cli", "ksum.1")).read()
    assert open(root + "/usr/include/ksumprov.h").read() == \
        open(os.path.join(ROOT, "include", "ksumprov.h")).read()

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
    got = subprocess.run(["pkg-config", "--variable=modulesdir", "ksumprov"],
                         env=dict(os.environ, PKG_CONFIG_PATH=root + ossl["pcfiledir"]),
                         stdout=subprocess.PIPE) if shutil.which("pkg-config") else None
    if got:
        assert got.stdout.decode().strip() == ossl["modulesdir"]
