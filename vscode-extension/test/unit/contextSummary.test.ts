import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContextTree, treeSummary } from '../../src/contextTree';
import { catalogItem } from './fixtures';

// The topic ids `ctxls catalog` lists for examples/library, where `ctxls
// check` reports "29 topics in 4 domains": the three root-level files are
// topics of no domain.
const exampleIds = [
  'cross_domain', 'git/branching_strategy', 'git/commit_conventions', 'git/history_rewriting', 'git/index',
  'git/merge_conflicts', 'git/pull_requests', 'index', 'loading_protocol', 'python/async_patterns',
  'python/common_issues', 'python/context_detection', 'python/django_patterns', 'python/fastapi_patterns',
  'python/index', 'python/pydantic_models', 'python/sqlalchemy_patterns', 'security/auth_patterns',
  'security/dependency_security', 'security/index', 'security/secrets_management', 'security/secure_coding',
  'testing/context_detection', 'testing/flaky_tests', 'testing/index', 'testing/mocking_guidelines',
  'testing/pytest_patterns', 'testing/test_strategy', 'testing/unittest_patterns',
];

test('the summary counts domains as ctxls check does: the root group is not one', () => {
  const tree = buildContextTree(exampleIds.map((id) => catalogItem({ id })));
  assert.equal(tree.length, 5, 'four domains and the group of root-level files');
  assert.equal(treeSummary(tree), '4 domains · 29 topics');
});

test('the summary of a library of root-level files only, of one domain, of nothing', () => {
  assert.equal(treeSummary(buildContextTree([catalogItem({ id: 'index' })])), '0 domains · 1 topic');
  assert.equal(treeSummary(buildContextTree([catalogItem({ id: 'go/index' }), catalogItem({ id: 'go/errors' })])), '1 domain · 2 topics');
  assert.equal(treeSummary([]), undefined);
});
