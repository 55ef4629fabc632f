# The wheel carries native binaries (hta.so, hta-ingest): tag it for this platform
# (py3-none-linux_x86_64 and the like), not as pure Python. Everything else is in pyproject.toml.
from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    # Build into platlib, so that the wheel's root is not purelib.
    def has_ext_modules(self):
        return True


cmdclass = {}
try:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = PlatformWheel
except ImportError:  # building an sdist only
    pass

setup(cmdclass=cmdclass, distclass=BinaryDistribution)
