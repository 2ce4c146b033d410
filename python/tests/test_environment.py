"""Issue 29: one prefix for sdekit's environment variables, SDEKIT_; the old
SDK_ names are taken for one release with a one-line note."""
import logging
import os

import pytest

import sdekit

KW = dict(paths=8, t_end=0.1, progress=False)


def _env(**kv):
    env = {k: os.environ[k] for k in ("PATH", "HOME", "TMPDIR", "CC") if k in os.environ}
    env.update(kv)
    return env


def _notes(caplog):
    return [r.getMessage() for r in caplog.records if "deprecated" in r.getMessage()]


def test_new_names(workdir, caplog):
    d = os.path.join(workdir, "cache-new")
    with caplog.at_level(logging.INFO, logger="sdekit"):
        sdekit.run("ou", environment=_env(SDEKIT_CACHE_DIR=d), **KW)
    assert os.path.isdir(d) and os.listdir(d)
    assert _notes(caplog) == []
    with pytest.raises(sdekit.UsageError, match=r"^SDEKIT_SYS_QI='9': expected a whole number "
                                                r"from 1 to 4$"):
        sdekit.run("ou", environment=_env(SDEKIT_SYS_QI="9"), **KW)


def test_old_names_taken_with_a_note(workdir, caplog):
    d = os.path.join(workdir, "cache-old")
    with caplog.at_level(logging.INFO, logger="sdekit"):
        sdekit.run("ou", environment=_env(SDK_CACHE_DIR=d, SDK_SYS_QI="2"), **KW)
    assert os.path.isdir(d) and os.listdir(d)
    assert _notes(caplog) == [
        "sdekit: note: SDK_CACHE_DIR, SDK_SYS_QI are deprecated: use SDEKIT_CACHE_DIR, "
        "SDEKIT_SYS_QI (the old names are taken until the next release)"]
    with pytest.raises(sdekit.UsageError, match=r"^SDK_SYS_QI='9'"):
        sdekit.run("ou", environment=_env(SDK_SYS_QI="9"), **KW)


def test_new_name_wins(workdir, caplog):
    new, old = os.path.join(workdir, "cache-both-new"), os.path.join(workdir, "cache-both-old")
    with caplog.at_level(logging.INFO, logger="sdekit"):
        sdekit.run("ou", environment=_env(SDK_CACHE_DIR=old, SDEKIT_CACHE_DIR=new), **KW)
    assert os.path.isdir(new) and not os.path.exists(old)
    assert _notes(caplog) == [
        "sdekit: note: SDK_CACHE_DIR is deprecated: use SDEKIT_CACHE_DIR (the old names are "
        "taken until the next release; where both are set, the new one: SDEKIT_CACHE_DIR)"]


def test_cli_cache_says_it_too(cli, workdir):
    """`sdekit cache list` runs nothing: it says the note itself."""
    import subprocess
    d = os.path.join(workdir, "cache-cli")
    env = dict(os.environ)
    env.pop("SDEKIT_CACHE_DIR", None)
    env["SDK_CACHE_DIR"] = d
    p = subprocess.run([cli, "cache", "list"], env=env, capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.startswith("kernel cache: %s" % d)
    assert p.stderr == ("sdekit: note: SDK_CACHE_DIR is deprecated: use SDEKIT_CACHE_DIR (the old "
                        "names are taken until the next release)\n")
    env["SDEKIT_CACHE_DIR"] = d
    del env["SDK_CACHE_DIR"]
    p = subprocess.run([cli, "cache", "list"], env=env, capture_output=True, text=True)
    assert p.returncode == 0 and p.stderr == ""


def test_os_environ_passes_what_the_library_reads():
    """Without environment=, only the variables the library reads cross into it (a
    large environment costs nothing per call): every name src/api/environment.c
    reads is among them, so none is lost."""
    import re
    from sdekit import _run
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src", "api", "environment.c")
    text = open(src).read()
    read = set(re.findall(r'(?:env_get|nonempty)\(envp, "([A-Z_]+)"\)', text))
    renamed = re.search(r"RENAMED\[\] = \{([^}]*)\}", text).group(1)
    read |= {p + n for n in re.findall(r'"([A-Z_]+)"', renamed) for p in ("SDEKIT_", "SDK_")}
    assert len(read) > 20, read  # (the patterns still find the reads)
    for name in sorted(read):
        k = name.encode()
        assert k in _run._ENV_NAMES or k.startswith(_run._ENV_PREFIXES), name
    # and through os.environ: a knob is read (a bad value refused), an unrelated name not
    old = os.environ.get("SDEKIT_SYS_QI")
    os.environ["SDEKIT_SYS_QI"] = "9"
    os.environ["SDEKIT_TEST_UNRELATED"] = "x" * 100
    try:
        with pytest.raises(sdekit.UsageError, match=r"^SDEKIT_SYS_QI='9'"):
            sdekit.run("ou", **KW)
    finally:
        del os.environ["SDEKIT_TEST_UNRELATED"]
        if old is None:
            del os.environ["SDEKIT_SYS_QI"]
        else:
            os.environ["SDEKIT_SYS_QI"] = old
