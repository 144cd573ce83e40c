"""nbhbench's run bookkeeping: submit, status, resume and archive a
generated campaign workspace (gen/workspace.py describes its layout).

  attempts   one kernel launch of a run: its record, state, finished experiments
  slurm      sbatch and the states Slurm reports (squeue, scontrol, sacct, jobcomp)
  local      runs a job script on this machine, with a time limit
  submit     `nbhbench submit`: local runs with progress, sbatch, --wait, --resume
  adaptive   an adaptive campaign's rounds: its looks (the analyzer) between them
  status     `nbhbench status`
  archive    `nbhbench archive` and `archive --verify` (docs/archive.md)
"""
