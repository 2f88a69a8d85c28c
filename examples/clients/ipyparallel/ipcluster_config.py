"""ipyparallel on PBS Professional / OpenPBS: an ``ipcluster_config.py`` whose launchers work.

Copy it into a profile (``~/.ipython/profile_pbs/ipcluster_config.py``) and run
``ipcluster start --profile=pbs -n 4``, or load it with ``ipp.Cluster(config=...)`` as
test_ipyparallel_pbs.py does.  .ci/clients runs that test against the fake in CI.

ipyparallel's PBS launchers are written for Torque: their default engine script asks for a job
array with ``#PBS -t 1-N`` and they keep only the digits of the id qsub prints.  PBS Professional
and OpenPBS know neither: an array is ``-J 1-N`` (``-t`` is refused), an array's id is ``12[].host``
(``qdel 12`` and ``qsig 12`` find no such job), and an array has two subjobs or more (``-J 1-1`` is
refused: "qsub: illegal -J value").  So this configuration

- gives both launchers their own script (a template of its own replaces ipyparallel's, and
  ipyparallel then inserts no ``-t``); the engines' script asks for ``-J 1-N`` when N > 1 and is a
  plain job when N is 1;
- keeps qsub's whole answer as the job id, so that ``qdel`` (stop) and ``qsig`` (signal) name the
  array itself (``12[].host``), every subjob with it;
- passes the submitter's environment (``-V``): PBS starts a job in ``$HOME`` with a PATH of its own,
  and the engines need the Python that has ipyparallel (the scripts name it by its full path, so
  ``-V`` is for what the engine imports, e.g. ``IPYTHONDIR``).

Each engine is one subjob of one cpu; add your site's ``-q``/``-A``/``-l walltime`` lines here.
"""
c = get_config()  # type: ignore[name-defined] # noqa: F821  (traitlets' config loader gives it)

c.Cluster.controller_launcher_class = "PBS"
c.Cluster.engine_launcher_class = "PBS"

# The whole id ("12[].host" or "13.host"), not ipyparallel's default r'\d+'.
c.PBSLauncher.job_id_regexp = r"\S+"

c.PBSControllerLauncher.batch_template = """#!/bin/sh
#PBS -V
#PBS -N ipcontroller
#PBS -l select=1:ncpus=1
#PBS -j oe
#PBS -o {output_file}
{program_and_args}
"""

# {...} fields are evaluated by ipyparallel's formatter: one line "#PBS -J 1-N" for N > 1.
c.PBSEngineSetLauncher.batch_template = """#!/bin/sh
#PBS -V
#PBS -N ipengine
#PBS -l select=1:ncpus=1
#PBS -j oe
{'#PBS -J 1-' + str(n) if n > 1 else ''}
{program_and_args}
"""
