import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commentCommand } from './comment-command.js';

test('the first non-empty line `/fixloop <command>` is the command; anything else is none', () => {
  const table: Array<[string | null, string | null]> = [
    ['/fixloop off', 'off'],
    ['/fixloop on', 'on'],
    ['/fixloop retry', 'retry'],
    ['/fixloop status', 'status'],
    ['\n\n  /FIXLOOP   Off  \nthanks', 'off'],
    ['/fixloop retry\r\nplease', 'retry'],
    ['please /fixloop off', null], // not the first line's start
    ['looks good\n/fixloop off', null], // not the first line
    ['/fixloop offline', null],
    ['/fixloop', null],
    ['/fixloop delete-everything', null],
    ['/fixloopoff', null],
    ['', null],
    [null, null],
  ];
  for (const [body, want] of table) assert.equal(commentCommand(body), want, JSON.stringify(body));
});
