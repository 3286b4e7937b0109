"""The main window: menus, file actions (open, save, Excel), help, settings and the status of long work."""
