"""pip install . -- the Python module, built by this repository's CMake.

    /usr/bin/python3 -m venv --system-site-packages VENV
    VENV/bin/pip install --no-build-isolation --no-index .

The extension (_core) is the CMake target sc_python, configured in
build-pip/ with the interpreter pip runs, so pip installs the same module
`cmake --install` does; it needs Debian's cmake, python3-dev, python3-numpy,
python3-setuptools and python3-wheel, and nothing from the network
(docs/python.md, "Building and installing").
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
VERSION = re.search(r"project\(spherecollide VERSION ([0-9.]+)",
                    (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = ROOT / "build-pip" / "cmake"
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build),
                               "-DCMAKE_BUILD_TYPE=Release", "-DSC_PYTHON=ON",
                               "-DSC_BUILD_TESTS=OFF", "-DSC_BUILD_BENCH=OFF",
                               "-DSC_BUILD_TOOLS=OFF", f"-DPython3_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", str(build), "--target", "sc_python",
                               "-j", str(os.cpu_count() or 2)])
        built = sorted((build / "python" / "spherecollide").glob("_core*.so"))
        if not built:
            raise RuntimeError(f"CMake built no _core module in {build}/python/spherecollide")
        dest = pathlib.Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], dest)


setup(
    name="spherecollide",
    version=VERSION,
    description="Every intersecting pair of a batch of spheres, exactly",
    license="MIT",
    packages=["spherecollide"],
    package_dir={"": "python"},
    ext_modules=[CMakeExtension("spherecollide._core")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}},
    python_requires=">=3.8",
    zip_safe=False,
)
