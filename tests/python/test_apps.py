# SPDX-License-Identifier: Apache-2.0
"""Every application: programs that know nothing of ksumprov get SHA-3,
SHAKE and KMAC from it under the preferred conf, proved to come from
ksumprov and not from a fallback; the README's examples for other programs
(openssl, Python, C) and its troubleshooting commands run as shown."""
import json
import os
import re
import shlex
import shutil
import subprocess

import pytest
from Cryptodome.Hash import SHA3_224, SHA3_256, SHA3_384, SHA3_512, SHAKE128, SHAKE256

import keccak_ref as ref
import readme
from conftest import BUILD

pytestmark = pytest.mark.skipif(
    os.environ.get("KSUM_SANITIZED") == "1",
    reason="a sanitized ksumprov.so cannot load into the uninstrumented openssl and python")

ROOT = readme.ROOT
BUILD = os.path.abspath(BUILD)
MODULE = os.path.join(BUILD, "ksumprov.so")
PREFERRED = os.path.join(BUILD, "ksumprov-preferred.cnf")
PLAIN = os.path.join(BUILD, "ksumprov.cnf")
# Debian's python, linked to the system's libssl 3 (another python3 on PATH
# may carry its own OpenSSL).
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


def env_for(conf, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENSSL_CONF", "OPENSSL_MODULES")}
    if conf is not None:
        env["OPENSSL_CONF"] = conf
    env.update(extra)
    return env


def run(cmd, conf, input=None, cwd=None, **extra):
    return subprocess.run(cmd, input=input, cwd=cwd, env=env_for(conf, **extra),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)


def ok(cmd, conf, **kw):
    p = run(cmd, conf, **kw)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout.decode()


def value(line):
    return line.strip().split("= ", 1)[1].lower()


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("apps")
    (d / "data").write_bytes(os.urandom(1000000))
    (d / "empty.cnf").write_text("")   # stock OpenSSL: the default provider only
    (d / "only.cnf").write_text(f"""openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
base = base_sect
ksumprov = ksumprov_sect
[base_sect]
activate = 1
[ksumprov_sect]
module = {MODULE}
activate = 1
""")
    stock = str(d / "empty.cnf")
    ok(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
        "-nodes", "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem"),
        "-subj", "/CN=ksum test", "-days", "1"], stock)
    ok(["openssl", "pkey", "-in", str(d / "key.pem"), "-pubout", "-out", str(d / "pub.pem")], stock)
    ok(["openssl", "x509", "-in", str(d / "cert.pem"), "-outform", "DER",
        "-out", str(d / "cert.der")], stock)
    return d


def test_build_tree_confs_name_the_module_by_its_path():
    for conf in (PLAIN, PREFERRED):
        text = open(conf).read()
        assert f"\nmodule = {MODULE}\n" in text
        assert "\ndefault = ksumprov_default_sect\n" in text
    assert "\ndefault_properties = ?provider=ksumprov\n" in open(PREFERRED).read()
    assert "default_properties" not in open(PLAIN).read()


# ---- proofs that the algorithms came from ksumprov ----

HASHLIB_SCRIPT = r"""
import hashlib, json, sys
data = sys.stdin.buffer.read()
def kind(h):
    return type(h).__module__ + "." + type(h).__name__
out = {}
for n in ("sha3_224", "sha3_256", "sha3_384", "sha3_512"):
    h = getattr(hashlib, n)(data)
    out[n] = [kind(h), h.hexdigest()]
for n, size in (("shake_128", 50), ("shake_256", 70)):
    h = getattr(hashlib, n)(data)
    out[n] = [kind(h), h.hexdigest(size)]
h = hashlib.sha256(data)
out["sha256"] = [kind(h), h.hexdigest()]
print(json.dumps(out))
"""


def test_hashlib_gets_sha3_and_shake_from_ksumprov_alone(work):
    """Under a conf with only ksumprov and base, Python's SHA-3 objects are
    OpenSSL's (a failed fetch would give Python's own _sha3), and right;
    SHA-256, which ksumprov lacks, falls back to Python's _sha256, which
    shows a fallback would be seen."""
    data = (work / "data").read_bytes()
    out = json.loads(ok([PYTHON, "-c", HASHLIB_SCRIPT], str(work / "only.cnf"), input=data))
    oracle = {"sha3_224": SHA3_224.new(data).hexdigest(),
              "sha3_256": SHA3_256.new(data).hexdigest(),
              "sha3_384": SHA3_384.new(data).hexdigest(),
              "sha3_512": SHA3_512.new(data).hexdigest(),
              "shake_128": SHAKE128.new(data).read(50).hex(),
              "shake_256": SHAKE256.new(data).read(70).hex()}
    for name, digest in oracle.items():
        kind = "_hashlib.HASHXOF" if name.startswith("shake") else "_hashlib.HASH"
        assert out[name] == [kind, digest], name
    assert out["sha256"][0] == "_sha256.sha256"


def test_hashlib_new_reaches_ksumprov_names(work):
    data = (work / "data").read_bytes()
    script = ("import hashlib, sys; d = sys.stdin.buffer.read(); "
              "h = hashlib.new('KT128', d); print(type(h).__name__, h.name, h.hexdigest(32)); "
              "print(hashlib.new('M14', d).hexdigest(20))")
    lines = ok([PYTHON, "-c", script], PREFERRED, input=data).splitlines()
    # OpenSSL 3.0 has no object name for KT128: Python calls it "undefined"
    assert lines == [f"HASHXOF undefined {ref.kt128(data, b'', 32).hex()}",
                     ref.m14(data, b"", 20).hex()]


FETCH_SCRIPT = r"""
import _hashlib, ctypes, json, sys
# the libcrypto hashlib uses, already loaded by _hashlib
path = next(l.split()[-1] for l in open("/proc/self/maps") if "libcrypto" in l)
c = ctypes.CDLL(path)
for f in ("EVP_MD_fetch", "EVP_MAC_fetch", "EVP_MD_get0_provider", "EVP_MAC_get0_provider"):
    getattr(c, f).restype = ctypes.c_void_p
c.EVP_MD_fetch.argtypes = c.EVP_MAC_fetch.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
c.EVP_MD_get0_provider.argtypes = c.EVP_MAC_get0_provider.argtypes = [ctypes.c_void_p]
c.OSSL_PROVIDER_get0_name.restype = ctypes.c_char_p
c.OSSL_PROVIDER_get0_name.argtypes = [ctypes.c_void_p]
out = {}
for kind, name in json.loads(sys.argv[1]):
    obj = getattr(c, "EVP_%s_fetch" % kind)(None, name.encode(), None)
    prov = getattr(c, "EVP_%s_get0_provider" % kind)(obj) if obj else None
    out[name] = c.OSSL_PROVIDER_get0_name(prov).decode() if prov else None
print(json.dumps(out))
"""


def providers_of(conf, names):
    arg = json.dumps(names)
    return json.loads(ok([PYTHON, "-c", FETCH_SCRIPT, arg], conf))


def test_preferred_conf_default_fetches_come_from_ksumprov():
    """What EVP_MD_fetch(NULL, name, NULL), as hashlib and openssl call it,
    returns in Python's own process."""
    names = [["MD", n] for n in ("SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512",
                                 "SHAKE128", "SHAKE256", "KT128", "SHA256")]
    names += [["MAC", "KMAC128"], ["MAC", "KMAC256"], ["MAC", "HMAC"]]
    got = providers_of(PREFERRED, names)
    assert got == {"SHA3-224": "ksumprov", "SHA3-256": "ksumprov", "SHA3-384": "ksumprov",
                   "SHA3-512": "ksumprov", "SHAKE128": "ksumprov", "SHAKE256": "ksumprov",
                   "KT128": "ksumprov", "SHA256": "default",
                   "KMAC128": "ksumprov", "KMAC256": "ksumprov", "HMAC": "default"}
    # without the preference, SHA-3 stays with the default provider
    got = providers_of(PLAIN, [["MD", "SHA3-256"], ["MD", "KT128"], ["MAC", "KMAC128"]])
    assert got == {"SHA3-256": "default", "KT128": "ksumprov", "KMAC128": "default"}


def test_openssl_mac_takes_an_empty_kmac_key_only_from_ksumprov(work):
    """OpenSSL's own KMAC refuses keys under 4 bytes; ksumprov takes any."""
    data = (work / "data").read_bytes()
    cmd = ["openssl", "mac", "-macopt", "hexkey:", "-in", str(work / "data"), "KMAC128"]
    assert ok(cmd, PREFERRED).strip().lower() == ref.kmac(128, b"", data, 32).hex()
    p = run(cmd, str(work / "empty.cnf"))
    assert p.returncode != 0 and b"invalid key length" in p.stderr


def fingerprint(der):
    return ":".join(f"{b:02X}" for b in ref.kt128(der, b"", 16))


@pytest.mark.parametrize("conf", ["plain", "preferred", "only"])
def test_x509_fingerprint_kt128(work, conf):
    path = {"plain": PLAIN, "preferred": PREFERRED, "only": str(work / "only.cnf")}[conf]
    out = ok(["openssl", "x509", "-in", str(work / "cert.pem"), "-noout", "-fingerprint",
              "-KT128"], path)
    assert out == f"KT128 Fingerprint={fingerprint((work / 'cert.der').read_bytes())}\n"


def test_ecdsa_sha3_signature_made_with_ksumprov_verifies_with_stock_openssl(work):
    data, sig = str(work / "data"), str(work / "sig")
    ok(["openssl", "dgst", "-sha3-256", "-sign", str(work / "key.pem"), "-out", sig, data],
       PREFERRED)
    out = ok(["openssl", "dgst", "-sha3-256", "-verify", str(work / "pub.pem"),
              "-signature", sig, data], str(work / "empty.cnf"))
    assert out == "Verified OK\n"
    # and the other way round
    ok(["openssl", "dgst", "-sha3-256", "-sign", str(work / "key.pem"), "-out", sig, data],
       str(work / "empty.cnf"))
    out = ok(["openssl", "dgst", "-sha3-256", "-verify", str(work / "pub.pem"),
              "-signature", sig, data], PREFERRED)
    assert out == "Verified OK\n"
    # a wrong signature does not verify through ksumprov either
    (work / "data2").write_bytes((work / "data").read_bytes() + b"x")
    p = run(["openssl", "dgst", "-sha3-256", "-verify", str(work / "pub.pem"),
             "-signature", sig, str(work / "data2")], PREFERRED)
    assert p.returncode == 1 and p.stdout == b"Verification failure\n"


needs_valgrind = pytest.mark.skipif(
    not (shutil.which("valgrind") and shutil.which("callgrind_annotate")),
    reason="valgrind's callgrind is needed to count where instructions ran")


def module_instructions(cmd, conf, tmp_path, input=None):
    """Runs cmd under callgrind; returns (instructions executed inside
    ksumprov.so, stdout)."""
    out = str(tmp_path / "callgrind.out")
    p = run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + cmd, conf,
            input=input)
    assert p.returncode == 0, p.stderr.decode()[-3000:]
    ann = subprocess.run(["callgrind_annotate", "--threshold=100", out],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    tag = "[" + os.path.realpath(MODULE) + "]"
    total = 0
    for line in ann.stdout.decode(errors="replace").splitlines():
        if line.rstrip().endswith(tag):
            total += int(line.split()[0].replace(",", ""))
    return total, p.stdout.decode()


# Absorbing n bytes costs well over 5 instructions a byte in any Keccak
# code (a permutation is thousands of instructions per block of at most
# 168 bytes); loading and initialising the module (its CPU detection, the
# fork handlers, the algorithm tables OpenSSL queries) costs far less than n/10.
def assert_hashed_in_module(count, n):
    assert count > 5 * n, f"{count} instructions in ksumprov.so for {n} bytes"


def assert_not_hashed_in_module(count, n):
    assert count < n // 10, f"{count} instructions in ksumprov.so for {n} bytes"


@needs_valgrind
def test_openssl_dgst_sha3_hashes_in_ksumprov(work, tmp_path):
    data = (work / "data").read_bytes()
    cmd = ["openssl", "dgst", "-sha3-256", str(work / "data")]
    count, out = module_instructions(cmd, PREFERRED, tmp_path)
    assert value(out) == SHA3_256.new(data).hexdigest()
    assert_hashed_in_module(count, len(data))
    count, out = module_instructions(cmd, PLAIN, tmp_path)   # the control
    assert value(out) == SHA3_256.new(data).hexdigest()
    assert_not_hashed_in_module(count, len(data))


@needs_valgrind
def test_python_hashlib_sha3_hashes_in_ksumprov(work, tmp_path):
    data = (work / "data").read_bytes()
    script = "import hashlib, sys; print(hashlib.sha3_256(sys.stdin.buffer.read()).hexdigest())"
    count, out = module_instructions([PYTHON, "-c", script], PREFERRED, tmp_path, input=data)
    assert out.strip() == SHA3_256.new(data).hexdigest()
    assert_hashed_in_module(count, len(data))


@needs_valgrind
def test_ecdsa_sha3_signature_hashes_in_ksumprov(work, tmp_path):
    data, sig = str(work / "data"), str(tmp_path / "sig")
    count, _ = module_instructions(["openssl", "dgst", "-sha3-256", "-sign",
                                    str(work / "key.pem"), "-out", sig, data],
                                   PREFERRED, tmp_path)
    assert_hashed_in_module(count, os.path.getsize(data))
    out = ok(["openssl", "dgst", "-sha3-256", "-verify", str(work / "pub.pem"),
              "-signature", sig, data], str(work / "empty.cnf"))
    assert out == "Verified OK\n"


# ---- the README's examples ----

def test_readme_any_program_block(work):
    text = readme.block("Use ksumprov from any program", "sh")
    assert text.startswith("export OPENSSL_CONF=/usr/share/ksum/ksumprov-preferred.cnf")
    # the paths go into a shell command: quoted, since TMPDIR or the build
    # tree may hold a space
    text = text.replace("/usr/share/ksum/ksumprov-preferred.cnf", shlex.quote(PREFERRED), 1)
    text = text.replace("cert.pem", shlex.quote(str(work / "cert.pem")))
    text = re.sub(r"^python3 ", lambda m: shlex.quote(PYTHON) + " ", text, flags=re.M)
    p = subprocess.run(["bash", "-e", "-c", text], cwd=ROOT, env=env_for(None),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    readme_md = open(os.path.join(ROOT, "README.md"), "rb").read()
    key = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
    lines = p.stdout.decode().splitlines()
    assert lines == [
        f"SHA3-256(README.md)= {SHA3_256.new(readme_md).hexdigest()}",
        f"KANGAROOTWELVE(README.md)= {ref.kt128(readme_md, b'', 16).hex()}",
        ref.kmac(128, key, readme_md, 32, b"tag").hex().upper(),
        f"KT128 Fingerprint={fingerprint((work / 'cert.der').read_bytes())}",
        f"{SHA3_256.new(b'abc').hexdigest()} {ref.kt128(b'abc', b'', 32).hex()}"]


def compile_c(source, tmp_path, name="app"):
    if not shutil.which("cc"):
        pytest.skip("no C compiler")
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    exe = tmp_path / name
    subprocess.run(["cc", "-Wall", "-Wextra", "-Werror", str(src), "-I",
                    os.path.join(ROOT, "include"), "-lcrypto", "-o", str(exe)], check=True)
    return str(exe)


def c_example_output():
    kt = ref.kt256(b"abc", b"my app", 100).hex()
    sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    return f"KT256: {kt}\nSHA256: {sha}\nSHA256 from default, random bytes: ok\n"


def test_readme_c_example_keeps_the_default_provider(work, tmp_path):
    source = readme.block("From C", "c")
    assert "OSSL_PROVIDER_try_load(NULL, KSUMPROV_NAME, 1)" in source
    exe = compile_c(source, tmp_path)
    out = ok([exe], str(work / "empty.cnf"), OPENSSL_MODULES=BUILD)
    assert out == c_example_output()
    # under the preferred conf too (ksumprov already loaded by the conf)
    assert ok([exe], PREFERRED) == c_example_output()
    # what the README warns of: OSSL_PROVIDER_load alone loses SHA256
    bad = compile_c(source.replace("OSSL_PROVIDER_try_load(NULL, KSUMPROV_NAME, 1)",
                                   "OSSL_PROVIDER_load(NULL, KSUMPROV_NAME)"), tmp_path, "bad")
    p = run([bad], str(work / "empty.cnf"), OPENSSL_MODULES=BUILD)
    assert p.returncode == 1
    assert b"Algorithm (SHA256" in p.stderr and b"unsupported" in p.stderr


def test_readme_openssl_without_conf_block(work):
    text = readme.block("From the openssl command line, without a conf", "sh")
    data = (work / "data").read_bytes()
    expected = [ref.kt128(data, b"", 16).hex(),
                SHAKE256.new(data).read(64).hex(),
                ref.kmac(128, bytes.fromhex("00010203"), data, 32, b"tag").hex(),
                ref.kt128(data, b"", 16).hex()]
    lines = [l for l in text.splitlines() if l.strip()]
    assert len(lines) == len(expected)
    for line, want in zip(lines, expected):
        # quoted for the shell (a space in TMPDIR or the build tree)
        line = re.sub(r"(?<=[ =])build(?=[ /]|$)", lambda m: shlex.quote(BUILD), line)
        line = line.replace("FILE", shlex.quote(str(work / "data")))
        p = subprocess.run(["bash", "-e", "-c", line], cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60,
                           env={k: v for k, v in os.environ.items()
                                if k not in ("OPENSSL_CONF", "OPENSSL_MODULES")})
        assert p.returncode == 0, (line, p.stderr.decode())
        out = p.stdout.decode().strip()
        assert (value(out) if "= " in out else out.lower()) == want, line


# ---- the README's troubleshooting commands ----

def troubleshooting_commands(conf, module):
    text = readme.block("When ksumprov does not show up", "sh")
    # quoted for the shell (a space in TMPDIR or the build tree)
    text = text.replace("/usr/share/ksum/ksumprov-preferred.cnf", shlex.quote(conf))
    text = text.replace("/usr/lib/x86_64-linux-gnu/ossl-modules/ksumprov.so",
                        shlex.quote(module))
    lines = text.strip().splitlines()
    assert len(lines) == 3
    results = []
    for line in lines:
        p = subprocess.run(["bash", "-c", line], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60, env=env_for(None))
        results.append(p.stdout.decode())
    return results


def test_troubleshooting_on_a_good_conf():
    listing, parsed, loaded = troubleshooting_commands(PREFERRED, MODULE)
    assert re.search(r"^  ksumprov\n.*\n.*\n    status: active$", listing, re.M)
    assert f"Can't find 'asn1' in '{PREFERRED}'" in parsed
    assert "ksumprov: Keccak family" in loaded


def test_troubleshooting_a_missing_conf(tmp_path):
    missing = str(tmp_path / "nowhere.cnf")
    listing, parsed, _ = troubleshooting_commands(missing, MODULE)
    assert "ksumprov" not in listing
    assert f"Can't open \"{missing}\" for reading, No such file or directory" in parsed


def test_troubleshooting_a_conf_with_a_syntax_error(tmp_path):
    conf = tmp_path / "broken.cnf"
    conf.write_text(open(PREFERRED).read().replace("[ksumprov_sect]", "[ksumprov_sect"))
    listing, parsed, _ = troubleshooting_commands(str(conf), MODULE)
    assert "ksumprov" not in listing
    assert re.search(r"Error on line \d+ of config file", parsed)


@pytest.mark.parametrize("problem", ["missing", "not_elf"])
def test_troubleshooting_a_module_that_does_not_load(tmp_path, problem):
    module = tmp_path / "ksumprov.so"
    if problem == "not_elf":
        module.write_text("not a shared object\n" * 200)
    conf = tmp_path / "bad-module.cnf"
    conf.write_text(open(PREFERRED).read().replace(MODULE, str(module)))
    # what the user sees first
    p = run(["openssl", "dgst", "-KT128", PREFERRED], str(conf))
    assert p.returncode == 1
    assert b"dgst: Unknown option or message digest: KT128" in p.stderr
    listing, parsed, loaded = troubleshooting_commands(str(conf), str(module))
    assert "ksumprov" not in listing
    assert "Can't find 'asn1'" in parsed
    if problem == "missing":
        assert "cannot open shared object file: No such file or directory" in loaded
    else:
        assert "invalid ELF header" in loaded


def test_openssl_3_0_stays_silent_even_with_config_diagnostics(tmp_path):
    version = ok(["openssl", "version"], None)
    if not version.startswith("OpenSSL 3.0."):
        pytest.skip("the README's claim is about OpenSSL 3.0")
    conf = tmp_path / "diag.cnf"
    conf.write_text("config_diagnostics = 1\n" +
                    open(PREFERRED).read().replace(MODULE, str(tmp_path / "nothere.so")))
    p = run(["openssl", "list", "-providers"], str(conf))
    assert p.returncode == 0 and b"ksumprov" not in p.stdout and p.stderr == b""
