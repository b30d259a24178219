"""A fresh copy of the checkout, as a clone of it would be: the files git tracks or would track
(untracked files that are not ignored included, so that uncommitted work is what is tested), never
a build directory. Shared by the install tests that build the tree from scratch."""
import os
import shutil
import subprocess


def fresh_copy(source, target):
    """Copies the checkout at `source` to `target` (replaced if it exists); returns `target`."""
    listed = subprocess.run(["git", "-C", source, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    if os.path.exists(target):
        shutil.rmtree(target)
    for relative in filter(None, listed):
        src = os.path.join(source, relative)
        if not os.path.lexists(src):
            continue  # deleted in the working tree, not yet committed
        dst = os.path.join(target, relative)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
    return target


def run(args, cwd=None, env=None, timeout=3600):
    """Runs a command; returns (exit status, stdout + stderr)."""
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr
