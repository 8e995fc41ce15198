/**
 * The notifications as VS Code renders them, read from the workbench DOM. The launcher's
 * smoke-test driver keeps VS Code from showing toasts, so the notifications center is opened,
 * where the same notifications render with their messages and buttons.
 */
import * as vscode from 'vscode';
import { workbenchEval } from './pageProbe';

export interface RenderedNotification {
  message: string;
  buttons: string[];
}

/** Page-side: the notification whose message contains `arg`, with its buttons; null until one renders. */
const FIND = `(text) => {
  for (const item of document.querySelectorAll('.notifications-center .notification-list-item')) {
    const message = (item.querySelector('.notification-list-item-message')?.textContent ?? '').trim();
    if (!message.includes(text)) continue;
    return { message, buttons: Array.from(item.querySelectorAll('.notification-list-item-buttons-container .monaco-button')).map((b) => b.textContent.trim()) };
  }
  return null;
}`;

/** Clears every notification, so that the next one looked for is this test's. */
export async function clearNotifications(): Promise<void> {
  await vscode.commands.executeCommand('notifications.clearAll');
}

/** The rendered notification whose message contains `text` (waits up to `timeoutMs` for it). */
export async function renderedNotification(text: string, timeoutMs = 20_000): Promise<RenderedNotification> {
  await vscode.commands.executeCommand('notifications.showList');
  try {
    return await workbenchEval<RenderedNotification>(FIND, text, timeoutMs);
  } finally {
    await vscode.commands.executeCommand('notifications.hideList');
  }
}

/** Page-side: clicks the button `arg.button` of the notification whose message contains `arg.text`. */
const CLICK = `({ text, button }) => {
  for (const item of document.querySelectorAll('.notifications-center .notification-list-item')) {
    if (!(item.querySelector('.notification-list-item-message')?.textContent ?? '').includes(text)) continue;
    const b = Array.from(item.querySelectorAll('.notification-list-item-buttons-container .monaco-button')).find((x) => x.textContent.trim() === button);
    if (!b) return null;
    b.click();
    return true;
  }
  return null;
}`;

/** Presses `button` on the rendered notification whose message contains `text`. */
export async function clickNotificationButton(text: string, button: string, timeoutMs = 20_000): Promise<void> {
  await vscode.commands.executeCommand('notifications.showList');
  try {
    await workbenchEval<boolean>(CLICK, { text, button }, timeoutMs);
  } finally {
    await vscode.commands.executeCommand('notifications.hideList');
  }
}
