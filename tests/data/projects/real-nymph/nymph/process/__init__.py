# -*- coding: utf-8 -*-
