#!/usr/bin/env python3
"""`cmake --install` works after either README command, on a fresh copy of the checkout (issue 33).

  demo_install.py SOURCE_DIR WORK_DIR

1. The command alone (`cmake --build build --target assignor`, what scripts/demo built before the
   conformance kit joined it): the install succeeds and leaves the kit and its runner out; the
   package serves a plugin that uses neither (find_package(Assignor 3), assignor_add_plugin, loaded
   by the installed command); asking for a missing part fails at configure time and says how to
   get it (COMPONENTS conformance_kit; assignor_add_conformance_test without the runner).
2. scripts/demo itself, then the install: the kit and the runner are there, and
   examples/third_party_plugin builds and passes its conformance test against that prefix.
Slow (a whole build, from ccache when the machine has one): ctest label `install`.
"""
import os
import sys

from fresh_copy import fresh_copy, run

PLAIN_CMAKE = """cmake_minimum_required(VERSION 3.25)
project(plain LANGUAGES CXX)
find_package(Assignor 3 REQUIRED)
assignor_add_plugin(plain SOURCES plain.cpp)
"""
PLAIN_CPP = """#include <assignor/sdk.hpp>
namespace {
class Plain final : public assignor::Strategy {
 public:
  explicit Plain(const assignor::StrategyParams& params) { params.reject_unknown({}); }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    assignor::AssignmentDraft draft(in.cluster, 0);
    for (assignor::TaskIndex t = 0; t < in.cluster.task_count(); ++t) draft.set_active(t, 0);
    return draft.finish(false);
  }
};
}  // namespace
ASSIGNOR_PLUGIN(Plain, "plain", "1.0.0", "every task on the first client (an install test)", 0)
"""
KIT_CMAKE = """cmake_minimum_required(VERSION 3.25)
project(wants_kit LANGUAGES CXX)
find_package(Assignor 3 REQUIRED COMPONENTS conformance_kit)
"""


def main():
    source, work = sys.argv[1], os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    src = fresh_copy(source, os.path.join(work, "src"))
    problems = []

    def step(what, args, cwd=None, expect_ok=True):
        rc, out = run(args, cwd=cwd)
        if (rc == 0) != expect_ok:
            problems.append(f"{what}: exit status {rc}\n{out[-3000:]}")
        return rc, out

    def configure(project, prefix, name):
        return run(["cmake", "-S", project, "-B", os.path.join(work, name), "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}",
                    "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"])

    # 1. The command alone.
    step("configure the copy", ["cmake", "--preset", "release"], cwd=src)
    step("build --target assignor", ["cmake", "--build", "build", "--target", "assignor"], cwd=src)
    if problems:
        return report(problems)
    bare = os.path.join(work, "prefix-command-only")
    step("install after building the command alone", ["cmake", "--install", "build", "--prefix", bare], cwd=src)
    for present in ["bin/assignor", "lib/cmake/Assignor/AssignorConfig.cmake", "include/assignor/plugin.hpp"]:
        if not os.path.exists(os.path.join(bare, present)):
            problems.append(f"the command-only install lacks {present}")
    for absent in ["bin/assignor_conformance", "lib/libassignor_conformance_kit.a"]:
        if os.path.exists(os.path.join(bare, absent)):
            problems.append(f"the command-only install has {absent}, which was never built")
    plain = os.path.join(work, "plain")
    os.makedirs(plain, exist_ok=True)
    with open(os.path.join(plain, "CMakeLists.txt"), "w") as f:
        f.write(PLAIN_CMAKE)
    with open(os.path.join(plain, "plain.cpp"), "w") as f:
        f.write(PLAIN_CPP)
    rc, out = configure(plain, bare, "plain-build")
    if rc != 0:
        problems.append(f"a plugin without the kit does not configure against the command-only install:\n{out[-3000:]}")
    else:
        step("build the kit-less plugin", ["cmake", "--build", os.path.join(work, "plain-build")])
        rc, out = step("the installed command lists it",
                       [os.path.join(bare, "bin/assignor"), "plugins", "--plugin-path", os.path.join(work, "plain-build")])
        if rc == 0 and "plain" not in out.split():
            problems.append(f"`assignor plugins --plugin-path` does not list the plugin:\n{out}")
    kit = os.path.join(work, "wants-kit")
    os.makedirs(kit, exist_ok=True)
    with open(os.path.join(kit, "CMakeLists.txt"), "w") as f:
        f.write(KIT_CMAKE)
    rc, out = configure(kit, bare, "wants-kit-build")
    if rc == 0 or "component conformance_kit is not installed" not in " ".join(out.split()):
        problems.append(f"COMPONENTS conformance_kit was not refused by the command-only install ({rc}):\n{out[-3000:]}")
    rc, out = configure(os.path.join(src, "examples/third_party_plugin"), bare, "example-without-runner")
    if rc == 0 or "the conformance runner is not installed" not in " ".join(out.split()):
        problems.append(f"assignor_add_conformance_test without a runner did not say what is missing ({rc}):\n"
                        f"{out[-3000:]}")

    # 2. What the README says: scripts/demo, then the install.
    step("scripts/demo", [os.path.join(src, "scripts/demo")], cwd=src)
    full = os.path.join(work, "prefix-demo")
    step("install after scripts/demo", ["cmake", "--install", "build", "--prefix", full], cwd=src)
    for present in ["bin/assignor", "bin/assignor_conformance", "lib/libassignor_conformance_kit.a",
                    "include/assignor/conformance.hpp"]:
        if not os.path.exists(os.path.join(full, present)):
            problems.append(f"the install after scripts/demo lacks {present}")
    rc, out = configure(os.path.join(src, "examples/third_party_plugin"), full, "example")
    if rc != 0:
        problems.append(f"the example does not configure against the install after scripts/demo:\n{out[-3000:]}")
    else:
        step("build the example", ["cmake", "--build", os.path.join(work, "example")])
        step("the example's conformance test",
             ["ctest", "--test-dir", os.path.join(work, "example"), "--output-on-failure"])
    return report(problems)


def report(problems):
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
