from django.db import migrations, models


class Migration(migrations.Migration):
    # ImportJob is created by 0006 (the leaf of this branch, which comes after 0008_automatic_judges)
    dependencies = [("annotator", "0006_import_jobs")]

    operations = [
        migrations.AddField(
            model_name="importjob",
            name="worker",
            field=models.CharField(
                blank=True, help_text="The process running it: host, pid and start time (annotator.interchange.import_jobs)", max_length=300
            ),
        ),
        migrations.AddField(
            model_name="importjob",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, help_text="Last sign of life of that process", null=True),
        ),
    ]
