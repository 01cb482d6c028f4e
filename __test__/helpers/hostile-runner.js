'use strict';

// `node hostile-runner.js IMPLEMENTATION FIRST_CASE`: the hostile matrix's child (hostile-matrix.js).
require('./hostile-matrix').child(process.argv.slice(2));
