"""The main window: input tables on top, results below, charts beside, all following one document."""
from __future__ import annotations

import sys
from typing import Callable

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (QComboBox, QDialog, QDockWidget, QHBoxLayout, QLabel, QMainWindow,
                               QSizePolicy, QSplitter, QTabWidget, QVBoxLayout, QWidget)

from model.workbook.rows import Workbook

from gui.tables.choice_delegate import ChoiceDelegate
from gui.document import Document
from gui.window import dialog_focus
from gui.window.column_fit import fit_columns, fit_results_grid, wider_texts
from gui.window.pane_heights import current_view, fit_pane_heights
from gui.window.file_actions import FileActions, is_workbook_path
from gui.window.menus import build_menus
from gui.window.row_actions import RowActions
from gui.window.message_log import MessageLog
from gui.window.screen_fit import ScreenFit
from gui.window.help_actions import HelpActions
from gui.window.charts_pane import AfterFirstPaint, ChartsPane, WindowCharts
from gui.tables.input_models import ClassTableModel, RowTableModel, TierTableModel
from gui.tables.override_grid import OverrideGridModel
from gui.tables.result_models import (INCOMPLETE_COLOUR, INCOMPLETE_WORDS, LEGENDS, METRICS, ResultsGridModel,
                                      shows_not_given as _shows_not_given,
                                      colour_scheme)
from gui.tables.summary_model import TierSummaryModel
from gui.tables.sparkline import SparklineDelegate
from gui.tables.spreadsheet_view import SpreadsheetView
from gui.window.task_status import TaskStatus
from gui.worker import TaskRunner

UNDOES_IT = "Ctrl+Z undoes it."
_REFUSED = "Refused, value kept: "

CLOSE_WAIT_MS = 5_000  # how long closing waits for a running task to stop before leaving it behind
_SUMMARY_TITLE = "<b>Per tier</b> (mix over the workload, priced)"
_EQUAL_WEIGHTS = ("  <span style=\"color:#8a1c12\">no output tokens entered: every task class weighs the same "
                  "in the mix</span>")


class MainWindow(WindowCharts, HelpActions, ScreenFit, QMainWindow):
    """The tables and the document they edit. What it does beyond them is in modules of its own under gui/window/:
    mixins for the charts (charts_pane.py), F1 and About (help_actions.py) and the fit to the screen
    (screen_fit.py); objects it holds for the File menu (file_actions.py) and row edits (row_actions.py); the menus'
    wiring (menus.py)."""

    def __init__(self, workbook: Workbook, path: str | None = None, settings: QSettings | None = None) -> None:
        super().__init__()
        self.settings = settings if settings is not None else QSettings("SpecLedger", "SpecLedger")
        self.document = Document(workbook, path, self)
        self.tasks = TaskRunner(self)  # shared by long jobs (ONNX sampling, big exports)
        # open on the first tier that runs speculative decoding, so the charts have something to show
        self._tier_row = next((i for i, t in enumerate(workbook.tiers) if t.speculative != "no"), 0 if workbook.tiers else -1)
        self._help = None  # the Help dialog (gui/window/help_dialog.py), built when Help first opens
        self.message_log = MessageLog()
        self._sampling_dock: QDockWidget | None = None
        self.sampling_panel = None  # built on first use (Tools > Measure acceptance)
        # the charts (pyqtgraph, a third of start-up's imports) are built once the window has painted, or when
        # first asked for (``charts``); until then their pane is empty. The class row they follow is kept here.
        self._charts: QWidget | None = None
        self._class_row = -1
        self._after_charts: list[Callable[[], None]] = []
        self._charts_after_paint = AfterFirstPaint(self, lambda: self.charts)
        self._build_models()
        self._build_views()
        self._build_status_bar()
        self.files = FileActions(self)
        self.rows = RowActions(self, self)
        build_menus(self)
        self.setAcceptDrops(True)
        self.document.changed.connect(self._on_document_changed)
        self.document.undo_stack.indexChanged.connect(self._on_undo_index_changed)
        self.document.dirty_changed.connect(self._on_dirty_changed)
        self.document.path_changed.connect(self._update_title)
        self.document.focus_requested.connect(self._on_focus_requested)
        self._restore_geometry()
        self._update_title()
        self.fit_columns()
        # the classes the grid's columns were fitted to: the first delete after opening refits too (a default
        # of "whatever they are now" left that one at the deleted class's widths)
        self._grid_classes = tuple(self.document.comparison.class_names)
        self._wider_texts = wider_texts(self.document.comparison)
        self._refresh_charts()
        self.show_message("Type into any input cell: results and charts follow on Enter. "
                          "Hover a result for how it was computed; F1 explains every number.", 0)

    # --- construction ----------------------------------------------------------
    def _build_models(self) -> None:
        doc = self.document
        self.tier_model = TierTableModel(doc)
        self.class_model = ClassTableModel(doc)
        self.override_model = OverrideGridModel(doc)
        self.results_model = ResultsGridModel(doc)
        self.summary_model = TierSummaryModel(doc)

    def _make_view(self, model) -> SpreadsheetView:  # noqa: ANN001
        view = SpreadsheetView(self)
        view.setModel(model)
        if isinstance(model, RowTableModel):
            # one delegate per view: a shared delegate's closeEditor reaches every view using it
            view.setItemDelegate(ChoiceDelegate(view))
        elif isinstance(model, OverrideGridModel):
            view.setItemDelegate(SparklineDelegate(view))  # a profile's cell draws its bars
        view.message_posted.connect(self._on_message_posted)
        if hasattr(model, "refused"):
            model.refused.connect(self._on_edit_refused)
        if hasattr(model, "noticed"):
            model.noticed.connect(self._on_message_posted)
        return view

    def _build_views(self) -> None:
        self.tier_view = self._make_view(self.tier_model)
        self.class_view = self._make_view(self.class_model)
        self.override_view = self._make_view(self.override_model)
        self.results_view = self._make_view(self.results_model)
        self.summary_view = self._make_view(self.summary_model)
        for view in (self.results_view, self.summary_view):
            view.doubleClicked.connect(self._on_result_double_clicked)
        for view in (self.tier_view, self.override_view, self.results_view, self.summary_view):
            view.selectionModel().currentRowChanged.connect(self._on_current_tier_changed)
            view.start_row = lambda: self._tier_row  # reached by Tab or a tab page: the tier shown, not the first
        # the per-position chart follows the class: a row of the classes table, a column of the two grids
        self.class_view.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._on_current_class(cur.row()))
        for view in (self.override_view, self.results_view):
            view.selectionModel().currentColumnChanged.connect(lambda cur, _prev: self._on_current_class(cur.column()))

        self.input_tabs = QTabWidget()
        self.input_tabs.setDocumentMode(True)
        self.input_tabs.addTab(self.tier_view, "Tiers")
        self.input_tabs.addTab(self.class_view, "Task classes")
        self.input_tabs.addTab(self.override_view, "Acceptance on each tier's draft")
        self._results_box = self._build_results_box()
        self._summary_box = self._build_summary_box()
        self._build_panes()
        if self._tier_row >= 0:
            self.tier_view.setCurrentIndex(self.tier_model.index(self._tier_row, 0))

    def _build_results_box(self) -> QWidget:
        """The results grid under its head: what it shows (the metric) and what its colours mean (the legend)."""
        self.metric_combo = QComboBox()
        for key, (label, _) in METRICS.items():
            self.metric_combo.addItem(label, key)
        self.metric_combo.currentIndexChanged.connect(self._on_metric_changed)
        self.legend = QLabel()
        # the keyboard back here when a dialog closes, window manager or none (gui/window/dialog_focus.py)
        self._focus_return = dialog_focus.install(self)
        self._legend_made_up = False
        # the legend gives way on a narrow screen rather than widen the window: it wraps between its entries
        # onto a second line (it was cut: 'not speculativ', and the value scheme's last entry, beside the probe dock
        # at 1600 x 1000)
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.legend.setWordWrap(True)
        self.legend.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._update_legend()
        head = QHBoxLayout()
        head.addWidget(QLabel("<b>Results by task class</b>  show:"))
        head.addWidget(self.metric_combo)
        head.addWidget(self.legend, 1)
        results_box = QWidget()
        box = QVBoxLayout(results_box)
        box.setContentsMargins(0, 4, 0, 0)
        box.addLayout(head)
        box.addWidget(self.results_view)
        return results_box

    def _build_summary_box(self) -> QWidget:
        summary_box = QWidget()
        box = QVBoxLayout(summary_box)
        box.setContentsMargins(0, 4, 0, 0)
        self.summary_title = QLabel(_SUMMARY_TITLE + (_EQUAL_WEIGHTS if self.document.comparison.equal_weights else ""))
        box.addWidget(self.summary_title)
        box.addWidget(self.summary_view)
        return summary_box

    def _build_panes(self) -> None:
        """Inputs, results and the per-tier summary one above another on the left; the charts' pane beside them."""
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.input_tabs)
        left.addWidget(self._results_box)
        left.addWidget(self._summary_box)
        left.setSizes([340, 300, 300])
        self.left_splitter = left
        self.charts_pane = ChartsPane()  # the charts go in once built (``charts``)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.charts_pane)
        self.splitter.setSizes([1060, 540])
        # the charts give way on a laptop screen (View > Charts, or drag the handle to the edge); the tables never
        self.splitter.setCollapsible(0, False)
        self.splitter.setCollapsible(1, True)
        self.splitter.splitterMoved.connect(self._on_splitter_moved)
        self.splitter.handle(1).installEventFilter(self)  # a drag's start and end set the width View > Charts restores
        self._chart_width = 540
        self.setCentralWidget(self.splitter)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.task_status = TaskStatus(bar, self.tasks, self.show_message)
        # kept as window attributes: what the status bar shows of the running task
        self.progress_label = self.task_status.label
        self.progress_bar = self.task_status.progress_bar
        self.cancel_button = self.task_status.cancel_button
        # the sampling panel sets this to the ONNX execution provider it ends up using
        self.provider_label = QLabel("Provider: –")
        self.provider_label.setToolTip("ONNX Runtime execution provider used to measure acceptance")
        bar.addPermanentWidget(self.provider_label)

    # --- what the user sees --------------------------------------------------------
    def fit_columns(self) -> None:
        """Widths to contents, with long free-text columns capped (run on load, not per edit)."""
        fit_columns((self.tier_view, self.class_view, self.override_view, self.results_view, self.summary_view))

    def _update_title(self) -> None:
        # the file, then the workbook's own title (Edit > Workbook settings) when it says more
        name, title = self.document.display_name(), self.document.workbook.title
        shown = f"{name} — {title}" if self.document.path and title and title != name.rsplit(".", 1)[0] else name
        self.setWindowTitle(f"{shown}[*] — SpecLedger")
        self.setWindowModified(self.document.dirty)

    def show_sampling_panel(self) -> None:
        """Tools > Measure acceptance: the dock, built on first use so onnx-related modules stay out of start-up."""
        from gui.sampling.dock import show_sampling_panel
        show_sampling_panel(self)

    def edit_settings(self) -> QDialog:
        from gui.window.settings_dialog import SettingsDialog  # a rarely used dialog: built when asked for

        dialog = SettingsDialog(self.document, self)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()  # window-modal, without a nested event loop
        return dialog

    def show_message(self, text: str, timeout_ms: int = 8000) -> None:
        self.statusBar().showMessage(text, timeout_ms)
        # a message longer than the window is wide is cut at its edge: whole in the tooltip and the log
        self.statusBar().setToolTip(f"{text}\n(View > Message log lists every message)" if text else "")
        self.message_log.record(text)

    def set_provider_text(self, text: str) -> None:
        self.provider_label.setText(f"Provider: {text}")

    def _focused_view(self) -> SpreadsheetView:
        for view in (self.tier_view, self.class_view, self.override_view, self.results_view, self.summary_view):
            if view.hasFocus():
                return view
        return self.input_tabs.currentWidget()  # type: ignore[return-value]

    # --- rows (gui/window/row_actions.py) ------------------------------------------------
    def add_row(self) -> None:
        self.rows.add_row()

    def duplicate_rows(self) -> None:
        self.rows.duplicate_rows()

    def delete_rows(self) -> None:
        self.rows.delete_rows()

    # --- slots ------------------------------------------------------------------------
    def _on_undo_index_changed(self, _index: int) -> None:
        # "Deleted tier X. Ctrl+Z undoes it." is false once that step is undone (or another edit lands on top)
        if self.statusBar().currentMessage().endswith(UNDOES_IT):
            stack = self.document.undo_stack
            self.show_message(f"Undone: {stack.redoText()}. Ctrl+Y redoes it." if stack.canRedo() and
                              stack.redoText() else "", 8000)

    def _on_document_changed(self) -> None:
        # a refusal is about the value typed before; once an edit lands it would read as refusing that one
        if self.statusBar().currentMessage().startswith(_REFUSED):
            self.statusBar().clearMessage()
        self._update_title()
        self._refresh_charts()
        equal = self.document.comparison.equal_weights
        self.summary_title.setText(_SUMMARY_TITLE + (_EQUAL_WEIGHTS if equal else ""))
        # classes back from an undo (or a paste) came back at Qt's default width, their numbers cut: refit
        names = tuple(self.document.comparison.class_names)
        if names != self._grid_classes:
            self._fit_results_grid()
            self.refit_panes_later()  # a class more or less: the grid's width, its scroll bar, the legend's lines
        self._grid_classes = names
        # intervals or profiles that an Apply (a probe, a measurement, an import) brings widen the cells
        # ('2.31x (2.19–2.42)', '87.5% · profile'): refit then too, or they read '2.31x (2.1…'
        wider = wider_texts(self.document.comparison)
        if wider != self._wider_texts:
            fit_columns((self.override_view, self.results_view, self.summary_view))
            self.refit_panes_later()
        self._wider_texts = wider
        made_up = _shows_not_given(self.document.comparison)
        if made_up != self._legend_made_up:  # its entry only while some tier shows that colour
            self._update_legend()
            self.refit_panes_later()

    def fit_pane_heights(self) -> bool:
        """The results grid and the Per tier table as tall as their rows, where the screen has room
        (gui/window/pane_heights.py)."""
        inputs = current_view(self.input_tabs)
        if inputs is None:
            return False
        return fit_pane_heights(self.left_splitter, [(self.input_tabs, inputs), (self._results_box, self.results_view),
                                                     (self._summary_box, self.summary_view)])

    def _fit_results_grid(self) -> None:
        fit_results_grid(self.results_view)

    def _on_focus_requested(self, where: object) -> None:
        # after undo/redo, show the cell that changed back, as a spreadsheet does
        views = {"tiers": self.tier_view, "classes": self.class_view, "overrides": self.override_view}
        if not (isinstance(where, tuple) and len(where) in (3, 5) and where[0] in views):
            return
        view = views[where[0]]
        if view.model().rowCount() and view.model().columnCount():
            self.input_tabs.setCurrentWidget(view)
            view.select_block(*where[1:3], *(where[3:] or where[1:3]))

    def _on_dirty_changed(self, _dirty: bool) -> None:
        self._update_title()

    def _update_legend(self) -> None:
        scheme = colour_scheme(self.metric_combo.currentData())
        self._legend_made_up = _shows_not_given(self.document.comparison)
        entries = LEGENDS[scheme] + ([(INCOMPLETE_COLOUR, INCOMPLETE_WORDS)] if self._legend_made_up else [])
        self.legend.setText(" ".join(f"<span style='background:{colour.name()}; white-space:nowrap'>&nbsp;{text}&nbsp;"
                                     "</span>" for colour, text in entries))
        self.legend.setToolTip("Cell colour: the " + ("value verdict (is the speed worth the price?)" if scheme == "value"
                                                      else "speed verdict (against plain decoding)")
                               + " for that tier on that class (Help > Guide to the numbers)")

    def _on_metric_changed(self, _index: int) -> None:
        self.results_model.set_metric(self.metric_combo.currentData())
        self._update_legend()
        # another metric, other text widths ("K=4 (2.10x)" is wider than "2.10x")
        self._fit_results_grid()

    def _on_edit_refused(self, message: str) -> None:
        self.show_message(f"{_REFUSED}{message}", 15000)

    def _on_message_posted(self, message: str) -> None:
        self.show_message(message, 15000 if "refused" in message.lower() else 5000)

    # --- window events -------------------------------------------------------------------
    def _restore_geometry(self) -> None:
        geometry = self.settings.value("window/geometry")
        restored = isinstance(geometry, QByteArray) and not geometry.isEmpty() and self.restoreGeometry(geometry)
        # a first start fits the screen (1366 x 768 too); a size saved on a larger screen is clamped to this one
        self.place_on_screen(bool(restored))
        panes = self.settings.value("window/panes")
        if isinstance(panes, QByteArray) and not panes.isEmpty():
            self.splitter.restoreState(panes)
            self.charts_action.setChecked(self._charts_shown())

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.files.maybe_save():
            event.ignore()
            return
        if not self.tasks.wait(CLOSE_WAIT_MS):
            # closing never hangs on a stuck job (a read that blocks, a session being created); the thread is
            # a daemon and ends with the process; the window is gone, so stderr is where this can be said
            print(f"specledger: '{self.tasks.label}' did not stop within {CLOSE_WAIT_MS // 1000} s of closing; "
                  "it was abandoned", file=sys.stderr)
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/panes", self.splitter.saveState())
        dock = self._sampling_dock
        if dock is not None and dock.isVisible() and not dock.isFloating():
            self.settings.setValue("window/sampling_dock_width", dock.width())
        self.settings.sync()
        event.accept()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        from gui.metrics.dialog import is_metrics_drop  # the metrics readers: not before the first paint
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile() and (is_workbook_path(urls[0].toLocalFile()) or is_metrics_drop(urls[0].toLocalFile())):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        from gui.metrics.dialog import is_metrics_drop
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            event.acceptProposedAction()
            paths = [u.toLocalFile() for u in urls if u.isLocalFile()]
            if is_metrics_drop(paths[0]):
                self.import_metrics(paths)
            else:
                self.files.open_path(paths[0])

    def import_metrics(self, paths: list[str] | None = None) -> object:
        """File > Import measured acceptance…, or metrics files dropped on the window."""
        from gui.metrics.dialog import open_import_dialog
        return open_import_dialog(self, self.document, paths or [], self.show_message)
