# The LLM judge: its cached answers, its runs, and the campaign setting that shows its proposals.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotator', '0014_ranked_lists_as_arrays'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='LlmAnswer',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=64, unique=True)),
                ('model', models.CharField(max_length=200)),
                ('prompt_version', models.CharField(max_length=50)),
                ('text', models.TextField(help_text="The answer's content, as the server sent it")),
                ('finish_reason', models.CharField(blank=True, max_length=20)),
                ('prompt_tokens', models.PositiveIntegerField(default=0)),
                ('completion_tokens', models.PositiveIntegerField(default=0)),
                ('seconds', models.FloatField(default=0.0, help_text='How long the server took')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.AddField(
            model_name='campaign',
            name='proposals_from',
            field=models.ForeignKey(blank=True, help_text='An automatic judge (e.g. an LLM) whose nuggets gold annotators see as suggestions, "proposed by" it, to accept or dismiss like the systems\' citations.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='show the proposals of'),
        ),
        migrations.CreateModel(
            name='LlmJudgeRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('status', models.CharField(choices=[('queued', 'waiting for the worker'), ('running', 'running'), ('done', 'finished'), ('failed', 'stopped')], default='queued', max_length=8)),
                ('base_url', models.CharField(max_length=500, verbose_name='server')),
                ('model', models.CharField(max_length=200)),
                ('key_variable', models.CharField(default='OPENAI_API_KEY', help_text='The environment variable holding the API key (the key itself is never stored)', max_length=100)),
                ('prompt_version', models.CharField(max_length=50)),
                ('temperature', models.FloatField(default=0.0)),
                ('seed', models.BigIntegerField(blank=True, null=True)),
                ('max_tokens', models.PositiveIntegerField(default=1024)),
                ('timeout', models.FloatField(default=120.0, help_text='Seconds per request')),
                ('retries', models.PositiveSmallIntegerField(default=2, help_text='More attempts after a failed request (with backoff)')),
                ('response_format', models.CharField(default='json_object', help_text='json_object (llama.cpp) or json_schema (vLLM, Ollama, vendors)', max_length=12)),
                ('quotes', models.CharField(default='free', help_text='free: any words of the turn; lines: one of its lines (small models)', max_length=8)),
                ('concurrency', models.PositiveSmallIntegerField(default=1)),
                ('limit', models.PositiveIntegerField(blank=True, help_text='At most this many conversations', null=True)),
                ('topics', models.JSONField(blank=True, default=list)),
                ('runs', models.JSONField(blank=True, default=list)),
                ('conversations', models.PositiveIntegerField(default=0, help_text='Conversations chosen')),
                ('judged', models.PositiveIntegerField(default=0, help_text='Conversations whose judgments were written')),
                ('failed', models.PositiveIntegerField(default=0, help_text='Conversations skipped: nothing written')),
                ('requests', models.PositiveIntegerField(default=0, help_text='Requests sent to the server')),
                ('cached', models.PositiveIntegerField(default=0, help_text='Answers read from the cache instead')),
                ('prompt_tokens', models.PositiveBigIntegerField(default=0)),
                ('completion_tokens', models.PositiveBigIntegerField(default=0)),
                ('problems', models.JSONField(blank=True, default=list, help_text='What went wrong, per conversation')),
                ('summary', models.TextField(blank=True)),
                ('task_id', models.CharField(blank=True, max_length=64)),
                ('worker', models.CharField(blank=True, max_length=300)),
                ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='llm_runs', to='annotator.campaign')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('judge', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
                'constraints': [models.CheckConstraint(condition=models.Q(('status__in', ['queued', 'running', 'done', 'failed'])), name='llm_judge_run_status_valid')],
            },
        ),
    ]
