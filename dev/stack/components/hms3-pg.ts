// Hive Metastore 3.1.3 (the line many production warehouses still run) on the private PostgreSQL,
// s3a:// warehouse on the stack's S3 (see ../hms.ts). For compatibility tests: 3.1 still has
// get_table/get_table_objects_by_name and lacks get_partitions_by_names_req.
import type { Component } from '../types';
import { hmsComponent } from '../hms';

export const component: Component = hmsComponent('hms3-pg');
