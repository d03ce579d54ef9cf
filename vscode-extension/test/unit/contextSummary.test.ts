import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContextTree, treeSummary } from '../../src/contextTree';
import { inventoryEntry } from './fixtures';

// The topic ids `ctxls catalog` lists for examples/library, where `ctxls
// check` reports "29 topics in 4 domains": the three root-level files are
// topics of no domain.
const exampleIds: string[] = [
  'cross_domain', 'git/branching_strategy', 'git/commit_conventions', 'git/history_rewriting', 'git/index',
  'git/merge_conflicts', 'git/pull_requests', 'index', 'loading_protocol', 'python/async_patterns',
  'python/common_issues', 'python/context_detection', 'python/django_patterns', 'python/fastapi_patterns',
  'python/index', 'python/pydantic_models', 'python/sqlalchemy_patterns', 'security/auth_patterns',
  'security/dependency_security', 'security/index', 'security/secrets_management', 'security/secure_coding',
  'testing/context_detection', 'testing/flaky_tests', 'testing/index', 'testing/mocking_guidelines',
  'testing/pytest_patterns', 'testing/test_strategy', 'testing/unittest_patterns',
];

/** An inventory of topics only, of the ids given. */
function topics(ids: readonly string[]) {
  const entries = ids.map((id) => inventoryEntry({ reference: id.includes('/') ? id.replace('/', ':') : id, tokens: 1 }));
  return { entries, tokens: entries.length, tokenizer: 'o200k_base' };
}

test('the summary counts domains as ctxls check does: the root group is not one', () => {
  const tree = buildContextTree(topics(exampleIds));
  assert.equal(tree.groups.length, 5, 'four domains and the group of root-level files');
  assert.equal(tree.summary, '4 domains · 29 topics · 29 tok (o200k_base)');
});

test('the summary of a library of root-level files only, of one domain, of nothing', () => {
  assert.equal(buildContextTree(topics(['index'])).summary, '0 domains · 1 topic · 1 tok (o200k_base)');
  assert.equal(buildContextTree(topics(['go/index', 'go/errors'])).summary, '1 domain · 2 topics · 2 tok (o200k_base)');
  assert.equal(treeSummary([]), undefined);
});
