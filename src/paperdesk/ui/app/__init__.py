"""The application around the window: QApplication set-up and create_main_window
(startup), the controller with the library lock and event loop (controller), one window
per library (instance), preferences (settings), offscreen screenshots (screenshot)."""
