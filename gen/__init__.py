"""nbhbench's campaign generator: campaign definitions -> per-run kernel inputs.

Modules, in the order a campaign flows through them:
  registry     the one list of operations, topologies, parameters (registry/*.csv)
  rules        the kernel's input rules: what applies where, defaults, value ranges
  conffile     the `key = value` / `[section]` format of campaign.conf and env files
  settings     campaign.conf and --set overrides
  envfile      environment files (env/)
  design       the API campaign files use: levels, cross, union, where, sqrt2_sizes
  experiments  a campaign's design -> the validated experiment table with ids
  runs         deployments x parameter sets x nrun -> runs, seeds, shuffled inputs
  rounds       an adaptive campaign's looks and its later rounds of runs
  jobscript    the job script of one run attempt
  workspace    where generated things live (work/<campaign>/) and `generate` itself
"""
