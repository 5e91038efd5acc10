from setuptools import find_packages, setup

setup(
    name="chipgym",
    version="0.1.0",
    description="Gymnasium environments for chip-design agents, graded by real EDA engines",
    python_requires=">=3.11",
    packages=find_packages(include=["chipgym", "chipgym.*"]),
    package_data={
        "chipgym": ["**/*.rb", "**/*.xml", "**/*.v", "**/*.sv", "**/*.cpp", "**/*.md", "**/*.yaml", "**/*.toml",
                    "**/expect", "tasks/chip/cpu/fixtures/*/model/*.py", "scoring/pdks/*.sha256"],
    },
    install_requires=[
        "gymnasium>=1.2",
        "numpy",
        "gdstk",
        "klayout",
        "pyyaml",
        "tqdm",
    ],
    extras_require={
        "rllib": ["ray[rllib]", "torch==2.13.0"],
        "dev": ["pytest", "pytest-timeout"],
    },
    entry_points={"console_scripts": ["chipgym=chipgym.cli:main"]},
)
