from django.contrib import admin, messages
from django.contrib.auth import views as auth_views
from django.urls import include, path, reverse_lazy


class SetPassword(auth_views.PasswordResetConfirmView):
    """The one-time link an organiser hands a new person (annotator.people): they set their
    password and are logged in, on their queue."""

    post_reset_login = True
    post_reset_login_backend = "django.contrib.auth.backends.ModelBackend"
    success_url = reverse_lazy("home")

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(self.request, "Your password is set: from now on, log in with your name and it.")
        return response


urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/reset/<uidb64>/<token>/", SetPassword.as_view(), name="password_reset_confirm"),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(success_url=reverse_lazy("password_change_done")),
         name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("", include("annotator.urls")),
]
