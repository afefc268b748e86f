# SPDX-License-Identifier: Apache-2.0
import hashlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

BUILD = os.environ.get("KSUM_BUILD_DIR", os.path.join(HERE, "..", "..", "build"))
KSUM = os.environ.get("KSUM_BIN", os.path.join(BUILD, "ksum"))


def run(args, input=None, cwd=None, env=None):
    """Runs ksum; returns (exit status, stdout bytes, stderr text)."""
    p = subprocess.run([KSUM] + list(args), input=input, cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def unprivileged():
    """(command prefix, passwd entry) that run a command as an unprivileged
    user: nothing when not root, setpriv to nobody when root; skips the
    test when root has no setpriv."""
    if os.geteuid() != 0:
        return [], None
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: cannot test as an unprivileged user")
    nobody = pwd.getpwnam("nobody")
    return (["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}",
             "--clear-groups"], nobody)


def build_shim(tmp_path_factory, name, source):
    """Compiles source into NAME.so for LD_PRELOAD; returns its path.  Skips
    under the sanitizers (their runtime must come first) or without cc.

    The loader splits LD_PRELOAD at spaces and colons, so the shim cannot
    live under pytest's tmp_path (TMPDIR may hold a space): it goes under
    the build tree, in test-shims/, named by a hash of what it is built
    from, so that pytest processes running side by side (ctest -j) share
    it; each compiles to a name of its own and renames it into place.
    (tmp_path_factory is no longer used; the callers still pass it.)"""
    cc = shutil.which("cc") or shutil.which("gcc")
    if os.environ.get("KSUM_SANITIZED") == "1" or cc is None:
        pytest.skip("no compiler, or a sanitizer runtime must come first")
    shims = os.path.join(os.path.abspath(BUILD), "test-shims")
    if any(c.isspace() or c == ":" for c in shims):
        pytest.skip(f"LD_PRELOAD cannot name a shim under {shims!r} (a space or a colon)")
    flags = ["-shared", "-fPIC", "-lcrypto", "-ldl"]
    key = hashlib.sha256("\0".join([cc] + flags + [source]).encode()).hexdigest()[:16]
    so = os.path.join(shims, f"{name}-{key}.so")
    if os.path.exists(so):
        return so
    os.makedirs(shims, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=".so", dir=shims)
    os.close(fd)
    src = tmp[:-len(".so")] + ".c"
    try:
        with open(src, "w") as f:
            f.write(source)
        subprocess.run([cc, "-o", tmp, src] + flags, check=True)
        os.chmod(tmp, 0o755)   # mkstemp's 0600 would keep an unprivileged run out
        os.replace(tmp, so)
    finally:
        for leftover in (tmp, src):
            if os.path.exists(leftover):
                os.unlink(leftover)
    return so


EVP_INIT_WRAPPERS = r"""
int EVP_DigestInit_ex2(EVP_MD_CTX *ctx, const EVP_MD *md, const OSSL_PARAM params[])
{
    int (*real)(EVP_MD_CTX *, const EVP_MD *, const OSSL_PARAM *) =
        (int (*)(EVP_MD_CTX *, const EVP_MD *, const OSSL_PARAM *))
        dlsym(RTLD_NEXT, "EVP_DigestInit_ex2");
    note(params);
    return real(ctx, md, params);
}

int EVP_MAC_init(EVP_MAC_CTX *ctx, const unsigned char *key, size_t keylen,
                 const OSSL_PARAM params[])
{
    int (*real)(EVP_MAC_CTX *, const unsigned char *, size_t, const OSSL_PARAM *) =
        (int (*)(EVP_MAC_CTX *, const unsigned char *, size_t, const OSSL_PARAM *))
        dlsym(RTLD_NEXT, "EVP_MAC_init");
    note(params);
    return real(ctx, key, keylen, params);
}
"""


def build_init_shim(tmp_path_factory, name, note):
    """A shim (build_shim) in which note, C source defining
    `static void note(const OSSL_PARAM *params)` after its includes, sees the
    parameters of every EVP_DigestInit_ex2 and EVP_MAC_init."""
    return build_shim(tmp_path_factory, name, note + EVP_INIT_WRAPPERS)


def digest_of(args, data):
    """The hex ksum prints for data given on standard input."""
    code, out, err = run(list(args) + ["-"], input=data)
    assert code == 0, err
    hexpart, name = out.decode().rstrip("\n").split("  ", 1)
    assert name == "-"
    return hexpart


@pytest.fixture
def ksum():
    return run


@pytest.fixture
def build_dir():
    return BUILD


INIT_LOG_SHIM = r"""
/* SPDX-License-Identifier: Apache-2.0 */
/* Test shim: appends one line per EVP_DigestInit_ex2 and EVP_MAC_init to
 * $INIT_LOG, each parameter as key=value (strings in hex). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <openssl/core.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(const OSSL_PARAM *params)
{
    char line[8192];
    size_t at = 0;
    int fd = open(getenv("INIT_LOG"), O_WRONLY | O_APPEND | O_CREAT, 0644);

    at += snprintf(line + at, sizeof line - at, "init");
    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        uint64_t v;
        at += snprintf(line + at, sizeof line - at, " %s=", p->key);
        if (p->data_type == OSSL_PARAM_OCTET_STRING || p->data_type == OSSL_PARAM_UTF8_STRING) {
            for (size_t i = 0; i < p->data_size && at + 3 < sizeof line; i++)
                at += snprintf(line + at, sizeof line - at, "%02x",
                               ((const unsigned char *)p->data)[i]);
        } else if (OSSL_PARAM_get_uint64(p, &v)) {
            at += snprintf(line + at, sizeof line - at, "%llu", (unsigned long long)v);
        } else {
            at += snprintf(line + at, sizeof line - at, "?");
        }
        if (at >= sizeof line - 32)
            break;
    }
    line[at++] = '\n';
    if (fd >= 0 && write(fd, line, at) < 0)
        perror("shim");
    if (fd >= 0)
        close(fd);
}

"""


@pytest.fixture(scope="module")
def init_log(tmp_path_factory):
    """init_log(args, cwd) runs ksum with the shim: its output and, for each
    EVP init, a dict of the parameters it was given (skipped, as every
    shim, under the sanitizers)."""
    shim = build_init_shim(tmp_path_factory, "initlog", INIT_LOG_SHIM)

    def inits(args, d):
        out, log = run_logged(shim, "INIT_LOG", args, d)
        return out, [dict(kv.split("=", 1) for kv in line.split()[1:])
                     for line in log.splitlines()]
    return inits


def run_logged(shim, variable, args, d):
    """Runs ksum in d with shim preloaded, writing to the log file that the
    environment variable names; its output and the log's text."""
    log = d / f"{variable.lower()}.log"
    if log.exists():
        log.unlink()
    code, out, err = run(args, cwd=d, env=dict(os.environ, LD_PRELOAD=shim, **{variable: str(log)}))
    assert code == 0, err
    return out, log.read_text()
