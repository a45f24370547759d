/**
 * The fleet page's files: found beside the module, served with their content types and a strict
 * CSP (nothing but the gateway itself), and a missing directory is an error naming where it looked.
 */
import { describe, expect, it } from 'vitest';

import { loadPage, PAGE_CSP } from './fleet-page.ts';

describe('loadPage', () => {
  it('serves the page and its assets with content types and a strict CSP', async () => {
    const page = await loadPage();
    expect([...page.keys()].sort()).toEqual([
      '/',
      '/page/app.css',
      '/page/app.js',
      '/page/charts.css',
      '/page/charts.js',
      '/page/chat.js',
      '/page/force-confirm.js',
      '/page/history-panels.js',
      '/page/node-card.js',
      '/page/usage-tables.js',
    ]);
    expect(page.get('/')?.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const script of [...page.keys()].filter((path) => path.endsWith('.js'))) {
      expect(page.get(script)?.headers['content-type']).toBe('text/javascript; charset=utf-8');
    }
    expect(page.get('/page/app.css')?.headers['content-type']).toBe('text/css; charset=utf-8');
    for (const asset of page.values()) {
      expect(asset.headers['content-security-policy']).toBe(PAGE_CSP);
      expect(asset.headers['content-length']).toBe(asset.body.length);
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
    }
    expect(PAGE_CSP).toContain("default-src 'none'");
    expect(PAGE_CSP).not.toContain('unsafe-inline');
  });

  it('marks the page of a gateway started without a token, and only that one', async () => {
    const open = await loadPage(undefined, { tokenless: true });
    const html = open.get('/')?.body.toString('utf8') ?? '';
    expect(html).toContain('<html lang="en" data-token="none">');
    expect(open.get('/')?.headers['content-length']).toBe(open.get('/')?.body.length);
    const guarded = (await loadPage()).get('/')?.body.toString('utf8') ?? '';
    expect(guarded).toContain('<html lang="en">');
    expect(guarded).not.toContain('data-token');
  });

  it('names nothing outside the gateway: no CDN, no font, no inline script or style', async () => {
    const page = await loadPage();
    for (const asset of page.values()) {
      const text = asset.body.toString('utf8');
      // The SVG namespace is a name, not a fetch.
      expect(text.replaceAll('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:\/\//);
      expect(text).not.toMatch(/@import|@font-face|url\(/);
    }
    const html = page.get('/')?.body.toString('utf8') ?? '';
    expect(html).not.toMatch(/<script>|<style|style="|\son[a-z]+="/);
  });

  it('fails naming the directories it looked in when the files are missing', async () => {
    const nowhere = new URL('file:///nonexistent-svc-page/');
    await expect(loadPage([nowhere])).rejects.toThrow(/nonexistent-svc-page.*rebuild svc/);
  });
});
