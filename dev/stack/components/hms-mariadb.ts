// Hive Metastore 4.0.1 on the private MariaDB, s3a:// warehouse on the stack's S3 (see ../hms.ts).
import type { Component } from '../types';
import { hmsComponent } from '../hms';

export const component: Component = hmsComponent('hms-mariadb');
