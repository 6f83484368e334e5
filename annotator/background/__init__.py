"""What every background job shares, whatever it does (docs/architecture.md):

- `jobs`: a job's life on its row (annotator.models.BackgroundJob): queued with its django-tasks
  task, claimed once by a worker, its progress and heartbeat, cancelled on request, ended, and
  failed once its worker died;
- `processes`: which process holds a job or a staging area (``host pid start``), and whether it
  still runs.

Import jobs, LLM judge runs and harvests go through it; what each does stays in its own package.
It sits just above annotator.models and imports nothing else of the app.
"""
