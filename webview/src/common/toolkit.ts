/**
 * The properties of the toolkit's custom elements (vscode-text-field, vscode-dropdown,
 * vscode-checkbox, vscode-panels) that the pages read and set, typed once here: the toolkit's own
 * element classes are not imported into the pages, which build them by tag name.
 */
type ToolkitElement = Element & { value?: unknown; checked?: unknown; activeid?: unknown };

/** A form control's value (text field, dropdown), as text. */
export function valueOf(element: Element): string {
  return String((element as ToolkitElement).value ?? '');
}

export function setValue(element: Element, value: string): void {
  (element as ToolkitElement).value = value;
}

export function isChecked(element: Element): boolean {
  return (element as ToolkitElement).checked === true;
}

export function setChecked(element: Element, checked: boolean): void {
  (element as ToolkitElement).checked = checked;
}

/** The id of a vscode-panels element's active tab ('' before one is active). */
export function activeTab(panels: Element): string {
  const id = (panels as ToolkitElement).activeid;
  return typeof id === 'string' ? id : '';
}

export function setActiveTab(panels: Element, id: string): void {
  (panels as ToolkitElement).activeid = id;
}
